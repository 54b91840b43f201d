import ArgumentParser
import Foundation
import LimelightData
import LimelightSearch

extension Limelight {
    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "record",
            abstract: "Decode a marker file: its entity, store, model and object, and the object's current values.")
        @Argument(help: "Path of a marker file.") var marker: String
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let reader = try ExternalRecordReader(markerPath: marker)
            let e = reader.elements
            let object = try reader.object()
            let values = ObjectPrinter.values(of: object)
            if json {
                try printJSON(["entity": e.entityName, "storeUUID": e.storeIdentifier, "storePath": e.storeURL.path,
                               "modelPath": e.modelURL.path, "objectURI": e.objectURI.absoluteString, "marker": e.markerURL.path,
                               "values": ObjectPrinter.json(values)])
            } else {
                print("entity:     \(e.entityName)")
                print("store UUID: \(e.storeIdentifier)")
                print("store:      \(e.storeURL.path)")
                print("model:      \(e.modelURL.path)")
                print("object:     \(e.objectURI.absoluteString)")
                print("values:")
                print(ObjectPrinter.text(values, indent: "  "))
            }
        }
    }

    struct Markers: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "markers",
            abstract: "Regenerate a store's marker files from its contents.")
        @Argument(help: "The SQLite store.") var store: String
        @Option(help: "The model (.xcdatamodeld, .xcdatamodel, .momd or .mom); default: the copy in the store's records folder, else the model the store keeps of itself.")
        var model: String?
        @Option(help: "Marker file extension, e.g. recipe (needed the first time).") var `extension`: String?
        @Option(help: "Folder for the markers (default: next to the store).") var directory: String?
        @Flag(help: "Rebuild every marker (create missing, rewrite stale, remove orphans).") var rebuild = false

        func run() throws {
            guard rebuild else { throw CommandError("say --rebuild to regenerate the markers") }
            let opened = try StoreOpener.open(store: store, model: model, markerExtension: `extension`, markerDirectory: directory, readOnly: false)
            guard let persistent = opened.coordinator.persistentStores.first else { throw CommandError("no store") }
            let report = try persistent.rebuildExternalRecords()
            print("created \(report.created), rewrote \(report.rewritten), removed \(report.removed), unchanged \(report.unchanged)")
            // This command has no Core Spotlight delegate: it keeps what markers said, and says
            // what it could not.
            if report.keptDescriptions > 0 { print("kept the Core Spotlight delegate's description in \(report.keptDescriptions) marker(s)") }
            if report.storeIsDescribed && report.created > 0 {
                print("\(report.created) marker(s) made anew carry no description: their objects are indexed from their properties until the application saves them or calls reindexAllObjects()")
            }
        }
    }
}

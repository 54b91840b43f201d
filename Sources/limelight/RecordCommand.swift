import ArgumentParser
import Foundation
import LimelightData

/// Shared printing of a live object: its attributes and relationships as URIs.
enum ObjectPrinter {
    static func values(of object: ManagedObject) -> [String: PrintedValue] {
        var result: [String: PrintedValue] = [:]
        for property in object.entity.properties where !(property is FetchedPropertyDescription) {
            if let relationship = property as? RelationshipDescription {
                result[property.name] = related(object, relationship)
            } else {
                let value = object.value(forKey: property.name)
                result[property.name] = PrintedValue(value, attribute: (property as? AttributeDescription)?.attributeType)
            }
        }
        return result
    }

    /// A relationship's value as URIs, read as IDs: no related object is made or fetched.
    private static func related(_ object: ManagedObject, _ relationship: RelationshipDescription) -> PrintedValue {
        let uris = object.objectIDs(forRelationshipNamed: relationship.name).map { $0.uriRepresentation().absoluteString }
        guard relationship.isToMany else { return uris.first.map(PrintedValue.text) ?? .null }
        return .list(relationship.isOrdered ? uris : uris.sorted())
    }

    static func text(_ values: [String: PrintedValue], indent: String = "  ") -> String {
        values.keys.sorted().map { key in "\(indent)\(key): \(values[key]?.text ?? "nil")" }.joined(separator: "\n")
    }

    /// The values as a JSON object's members.
    static func json(_ values: [String: PrintedValue]) -> [String: Any] { values.mapValues(\.json) }
}

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
        @Option(help: "The model (.xcdatamodeld or .xcdatamodel); default: the copy in the store's records folder.") var model: String?
        @Option(help: "Marker file extension, e.g. recipe (needed the first time).") var `extension`: String?
        @Option(help: "Folder for the markers (default: next to the store).") var directory: String?
        @Flag(help: "Rebuild every marker (create missing, rewrite stale, remove orphans).") var rebuild = false

        func run() throws {
            guard rebuild else { throw CommandError("say --rebuild to regenerate the markers") }
            let opened = try StoreOpener.open(store: store, model: model, markerExtension: `extension`, markerDirectory: directory, readOnly: false)
            guard let persistent = opened.coordinator.persistentStores.first else { throw CommandError("no store") }
            let report = try persistent.rebuildExternalRecords()
            print("created \(report.created), rewrote \(report.rewritten), removed \(report.removed), unchanged \(report.unchanged)")
        }
    }
}

import ArgumentParser
import Foundation
import LimelightData

extension Limelight {
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Migrate a store to another version of its model (lightweight, or with a mapping model).",
            discussion: """
                Prints the inferred mapping (what is added, removed, renamed, retyped), then migrates. The version \
                the store was made with is found among the bundle's versions by the store's version hashes, \
                unless --from names it; when none fits, a store made by Core Data is migrated from the model it \
                keeps of itself. Changes that cannot be inferred are listed and nothing is written.

                With --mapping, the store is migrated object by object with a mapping model made in Xcode (an \
                .xcmappingmodel from the project, or a compiled .cdm) instead. A mapping that names a custom \
                entity migration policy cannot be run from here (the policy is the application's code): it is \
                refused and nothing is written. On any failure the store is left as it was.
                """)
        @Argument(help: "The SQLite store.") var store: String
        @Option(help: "The destination: an .xcdatamodeld bundle (its current version) or one .xcdatamodel version in it.")
        var model: String
        @Option(help: "The version the store was made with: a version name in the bundle or a model path.")
        var from: String?
        @Option(help: "A mapping model to migrate with, object by object: an .xcmappingmodel (or its xcmapping.xml) or a .cdm.")
        var mapping: String?
        @Flag(help: "Print the mapping only; write nothing.") var dryRun = false

        func run() throws {
            let storeURL = URL(fileURLWithPath: store)
            guard FileManager.default.fileExists(atPath: storeURL.path) else { throw CommandError("\(store): no such store") }
            let (versions, destinationName) = try Self.versions(for: URL(fileURLWithPath: model))
            guard let destination = versions.first(where: { $0.name == destinationName })?.model else {
                throw CommandError("\(model): no version named \(destinationName)")
            }
            let source = try sourceVersion(storeURL: storeURL, versions: versions)
            print("store: \(storeURL.path)")
            print("from: \(source.name)  to: \(destinationName)")
            if source.model === destination {
                print("the store already fits \(destinationName): nothing to migrate")
                return
            }
            if let mapping {
                try migrate(storeURL, from: source, to: (destinationName, destination), with: URL(fileURLWithPath: mapping))
                return
            }
            let manager = try MigrationManager(sourceModel: source.model, destinationModel: destination)
            print(manager.mappingModel.description)
            if !manager.mappingModel.unmappableChanges.isEmpty {
                throw CommandError("\(store): cannot migrate: \(manager.mappingModel.unmappableChanges.count) change(s) cannot be inferred (listed above); "
                    + "the store is unchanged. Such changes need a mapping model written in code (MappingModel, EntityMigrationPolicy) "
                    + "run by MigrationManager.migrateStore(from:…) or given in StoreOption.mappingModels")
            }
            if dryRun {
                print("dry run: the store was not changed")
                return
            }
            try manager.migrateStore(at: storeURL)
            print("migrated to \(destinationName)")
            try rebuildMarkers(storeURL)
        }

        /// A store with markers: bring them in line (renamed and removed entities move or go).
        func rebuildMarkers(_ storeURL: URL) throws {
            guard StoreOpener.registeredExtension(for: storeURL) != nil else { return }
            let opened = try StoreOpener.open(store: store, model: model, readOnly: false)
            if let added = opened.coordinator.persistentStores.first {
                let report = try added.rebuildExternalRecords()
                print("markers: \(report.created) created, \(report.rewritten) rewritten, \(report.removed) removed")
            }
        }

        /// Every version next to the destination, and the destination's name.
        static func versions(for url: URL) throws -> ([(name: String, model: ManagedObjectModel)], String) {
            if url.pathExtension == "xcdatamodeld" {
                return (try ManagedObjectModel.loadVersions(inBundle: url), try ManagedObjectModel.currentVersionName(inBundle: url))
            }
            let version = url.lastPathComponent == "contents" ? url.deletingLastPathComponent() : url
            let name = version.deletingPathExtension().lastPathComponent
            let bundle = version.deletingLastPathComponent()
            if bundle.pathExtension == "xcdatamodeld" { return (try ManagedObjectModel.loadVersions(inBundle: bundle), name) }
            return ([(name, try ManagedObjectModel(contentsOf: url))], name)
        }

        func sourceVersion(storeURL: URL, versions: [(name: String, model: ManagedObjectModel)]) throws -> (name: String, model: ManagedObjectModel) {
            if let from {
                if let named = versions.first(where: { $0.name == from }) { return named }
                let url = URL(fileURLWithPath: from)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw CommandError("--from \(from): not a version of the model (\(versions.map(\.name).joined(separator: ", "))) nor a model file")
                }
                return (url.deletingPathExtension().lastPathComponent, try ManagedObjectModel(contentsOf: url))
            }
            if let model = try MigrationManager.sourceModel(forStoreAt: storeURL, among: versions.map(\.model)),
               let match = versions.first(where: { $0.model === model }) {
                return match
            }
            // A store Core Data made keeps the model it was made with, as Core Data's own
            // lightweight migration uses when the app no longer ships that version.
            do {
                return ("the store's own model (Z_MODELCACHE)", try ManagedObjectModel(cachedInStoreAt: storeURL))
            } catch {
                throw CommandError("\(store): none of the versions (\(versions.map(\.name).joined(separator: ", "))) made this store, "
                    + "and it keeps no usable model of its own (\(error)); name the version with --from")
            }
        }
    }
}

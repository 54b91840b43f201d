// A store's metadata (Z_METADATA.Z_PLIST, a binary property list Core Data and apps write keys
// into): put into a real store, then read by the metadata call, weighed against the model, and
// interpreted by opening the store read-only and for writing (which rewrites it).
import Foundation
import FuzzSupport
@testable import LimelightData

let model = FuzzModel.make()
let folder = FuzzFixtures.scratch("fuzz-store-metadata")
let template = folder.appendingPathComponent("template.sqlite")
let file = folder.appendingPathComponent("store.sqlite")

/// The store every input's metadata is put into: made once, populated, one file.
let templateBytes: Data? = {
    do {
        return try StoreSeeds.populatedStore(at: template, model: model)
    } catch {
        FileHandle.standardError.write(Data("cannot make the metadata fuzz store: \(error)\n".utf8))
        return nil
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreMetadata(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let templateBytes else { FuzzSeeds.giveUp("the metadata fuzz store cannot be made") }
    do {
        try StoreSeeds.removeStore(at: file)
        try templateBytes.write(to: file)
        let connection = try SQLiteConnection(path: file.path, readOnly: false)
        _ = try connection.run("UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", [.blob(FuzzSeeds.data(bytes, count))])
        connection.close()
    } catch {
        FuzzSeeds.giveUp("cannot put the metadata into the store: \(error)")
    }
    if let metadata = try? PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: file) {
        _ = model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
    }
    for readOnly in [true, false] {
        guard let coordinator = try? PersistentStoreCoordinator(managedObjectModel: model),
              let store = try? coordinator.addPersistentStore(type: .sqlite, at: file, options: [StoreOption.readOnly: readOnly]) else { continue }
        _ = coordinator.metadata(for: store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.performAndWait { _ = try? context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) }
        coordinator.remove(store)
    }
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        guard templateBytes != nil else { throw ModelError("the metadata fuzz store cannot be made", at: template.path) }
        var seeds: [Data] = []
        let connection = try SQLiteConnection(path: template.path, readOnly: true)
        try connection.query("SELECT Z_PLIST FROM Z_METADATA") { row in
            if case .blob(let data) = SQLiteValue(statement: row, column: 0) { seeds.append(data) }
        }
        connection.close()
        // Metadata as Core Data writes it for a store it made (no LimelightVersion), and keys of
        // unexpected kinds.
        let hashes = model.entityVersionHashesByName
        seeds.append(try PropertyListWriter.data(["NSStoreType": "SQLite", "NSStoreModelVersionHashes": hashes,
                                                  "NSStoreModelVersionIdentifiers": [""], "NSPersistenceFrameworkVersion": 1_335], format: .binary))
        seeds.append(try PropertyListWriter.data(["LimelightVersion": "1", "NSStoreModelVersionHashes": ["Item": "not data"],
                                                  "NSStoreModelVersionHashesVersion": "3"], format: .binary))
        seeds.append(try PropertyListWriter.data(["NSStoreModelVersionHashes": [Data()], "NSStoreUUID": 7], format: .binary))
        return seeds
    }
    return 0
}

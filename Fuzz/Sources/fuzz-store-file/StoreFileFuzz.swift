// SQLite store files as `limelight status STORE` meets them: the header checked for a file cut
// short, the metadata read, the model the store keeps of itself (Z_MODELCACHE) loaded, the store
// opened read-only against it (or against a model with every attribute kind) and every row read.
import Foundation
import FuzzSupport
@testable import LimelightData

let folder = FuzzFixtures.scratch("fuzz-store-file")
let file = folder.appendingPathComponent("store.sqlite")
let fallbackModel = FuzzModel.make()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreFile(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    for suffix in ["-wal", "-shm", "-journal"] { unlink(file.path + suffix) }
    guard (try? FuzzSeeds.data(bytes, count).write(to: file)) != nil else { return 0 }
    guard let metadata = try? PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: file) else { return 0 }
    let model = (try? ManagedObjectModel(cachedInStoreAt: file)) ?? fallbackModel
    _ = model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
    guard let coordinator = try? PersistentStoreCoordinator(managedObjectModel: model),
          (try? coordinator.addPersistentStore(type: .sqlite, at: file, options: [StoreOption.readOnly: true])) != nil else { return 0 }
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    context.performAndWait {
        for entity in model.entities where !entity.isAbstract {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            request.fetchLimit = 50
            for object in (try? context.fetch(request)) ?? [] {
                for name in object.entity.propertiesByName.keys { _ = object.value(forKey: name) }
            }
        }
    }
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        let seeds = FuzzFixtures.scratch("fuzz-store-file-seeds")
        // A store this project writes, with every attribute kind, and Core Data's sample store.
        let made = try StoreSeeds.populatedStore(at: seeds.appendingPathComponent("made.sqlite"), model: fallbackModel)
        let sample = try StoreSeeds.checkpointedCopy(
            of: FuzzFixtures.folder.appendingPathComponent("coredata/SampleModel/SampleModel_V1.sqlite"), in: seeds)
        return [made, try Data(contentsOf: sample)]
    }
    return 0
}

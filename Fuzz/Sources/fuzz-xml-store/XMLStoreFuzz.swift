// Core Data XML store files, opened read-only against a model with every attribute kind, and
// every object's values read.
import Foundation
import FuzzSupport
@testable import LimelightData

let model = FuzzModel.make()
let file = FuzzFixtures.scratch("fuzz-xml-store").appendingPathComponent("store.xml")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLStore(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard (try? FuzzSeeds.data(bytes, count).write(to: file)) != nil,
          let coordinator = try? PersistentStoreCoordinator(managedObjectModel: model),
          (try? coordinator.addPersistentStore(type: .xml, at: file, options: [StoreOption.readOnly: true])) != nil else { return 0 }
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    for entity in ["Item", "Owner", "Tag"] {
        for object in (try? context.fetch(FetchRequest<ManagedObject>(entityName: entity))) ?? [] {
            for name in object.entity.propertiesByName.keys { _ = object.value(forKey: name) }
        }
    }
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        let seedFile = FuzzFixtures.scratch("fuzz-xml-store-seeds").appendingPathComponent("seed.xml")
        try? FileManager.default.removeItem(at: seedFile)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .xml, at: seedFile)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try FuzzModel.populate(context)
        try context.save()
        return [try Data(contentsOf: seedFile)]
    }
    return 0
}

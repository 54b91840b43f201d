// Model XML made into a store: what a model says about the store's layout is read from outside
// too. Derived attributes become triggers, compound indexes and uniqueness constraints become
// indexes; the store is made, an object of every entity saved, changed and fetched.
import Foundation
import FuzzSupport
@testable import LimelightData

let folder = FuzzFixtures.scratch("fuzz-model-store")
let file = folder.appendingPathComponent("store.sqlite")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelStore(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let model = try? ManagedObjectModel(xmlData: FuzzSeeds.data(bytes, count), source: "contents"),
          model.entities.count <= 16 else { return 0 }
    try? StoreSeeds.removeStore(at: file)
    guard let coordinator = try? PersistentStoreCoordinator(managedObjectModel: model),
          let store = try? coordinator.addPersistentStore(type: .sqlite, at: file) else { return 0 }
    defer { coordinator.remove(store) }
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    context.performAndWait {
        var objects: [ManagedObject] = []
        for entity in model.entities where !entity.isAbstract {
            guard let object = try? context.insertNewObject(forEntityName: entity.name) else { continue }
            for case let attribute as AttributeDescription in entity.propertiesByName.values where !attribute.isDerived {
                if let value = ModelStoreValues.sample(attribute.attributeType) { object.setValue(value, forKey: attribute.name) }
            }
            objects.append(object)
        }
        // Each to-one points at an object of its destination, so derivations through it have rows to read.
        for object in objects {
            for case let relationship as RelationshipDescription in object.entity.propertiesByName.values where !relationship.isToMany {
                if let target = objects.first(where: { $0.entity.name == relationship.destinationEntityName }) {
                    object.setValue(target, forKey: relationship.name)
                }
            }
        }
        guard (try? context.save()) != nil else { return }
        for object in objects {
            for case let attribute as AttributeDescription in object.entity.propertiesByName.values where attribute.attributeType == .string && !attribute.isDerived {
                object.setValue("Ärger", forKey: attribute.name)
            }
        }
        _ = try? context.save()
        for entity in model.entities {
            _ = try? context.fetch(FetchRequest<ManagedObject>(entityName: entity.name))
        }
    }
    return 0
}

/// A value of each attribute kind, for the objects the fuzzer saves.
enum ModelStoreValues {
    static func sample(_ type: AttributeType) -> Any? {
        switch type {
        case .string: "Zoë"
        case .integer16: Int16(3)
        case .integer32: Int32(4)
        case .integer64: Int64(5)
        case .double: 2.5
        case .float: Float(1.5)
        case .decimal: Decimal(string: "1.25")
        case .boolean: true
        case .date: Date(timeIntervalSinceReferenceDate: 86_400)
        case .binaryData: Data([1, 2, 3])
        case .uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        case .uri: URL(string: "https://example.com")
        default: nil
        }
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        try FuzzFixtures.modelContents().map { try Data(contentsOf: $0) } + ModelStoreSeeds.models.map { Data($0.utf8) }
    }
    return 0
}

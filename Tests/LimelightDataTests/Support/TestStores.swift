import Foundation
@testable import LimelightData
import ScratchFolders

/// A fresh temporary folder per test, removed when the value goes away.
final class TemporaryFolder: ScratchFolder {
    init() throws { try super.init(prefix: "limelight-tests-") }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// The 2006 "Core Data in a Nutshell" demo model: photos and their photographers.
enum PhotoModel {
    static func make() -> ManagedObjectModel {
        let rating = AttributeDescription(name: "rating", type: .integer16, isOptional: false, defaultValue: Int16(2))
        rating.minValue = 0
        rating.maxValue = 5
        let photo = EntityDescription(name: "Photo", properties: [
            AttributeDescription(name: "data", type: .binaryData),
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "Untitled"),
            rating,
            RelationshipDescription(name: "photographer", destination: "Person", inverse: "photos"),
        ])
        photo.managedObjectClassName = "Photo"
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "firstName", type: .string),
            AttributeDescription(name: "lastName", type: .string),
            RelationshipDescription(name: "photos", destination: "Photo", inverse: "photographer", toMany: true),
        ])
        return ManagedObjectModel(entities: [photo, person])
    }

    static func stack(at url: URL?, model: ManagedObjectModel = make()) throws -> ManagedObjectContext {
        try TestStack.context(model: model, at: url)
    }
}

/// A context on one store: SQLite at `url`, in memory without one.
enum TestStack {
    static func context(model: ManagedObjectModel, at url: URL?, options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        if let url {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        } else {
            try coordinator.addPersistentStore(type: .inMemory)
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

final class Photo: ManagedObject {
    @Managed var name: String?
    @Managed var rating: Int16
    @Managed var data: Data?
    @Managed var photographer: Person?
}

final class Person: ManagedObject {
    @Managed var firstName: String?
    @Managed var lastName: String?
    @Managed var photos: Set<Photo>
}

import Foundation
import Testing
@testable import LimelightData

/// A required to-many relationship may be empty, as in Core Data: only its minimum count asks for
/// objects. Apps' models lean on it: a post's required to-many of the posts that share it (empty
/// until someone does), whose inverse is an optional to-one on the same entity.
struct RequiredToManyTests {
    static func model(minimumSharers: Int = 0) -> ManagedObjectModel {
        let sharedFrom = RelationshipDescription(name: "sharedFrom", destination: "Post", inverse: "sharing", toMany: true)
        sharedFrom.isOptional = false
        sharedFrom.minCount = minimumSharers
        let author = RelationshipDescription(name: "author", destination: "Writer", inverse: "posts")
        author.isOptional = false
        let posts = RelationshipDescription(name: "posts", destination: "Post", inverse: "author", toMany: true)
        posts.isOptional = false
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Post", properties: [
                AttributeDescription(name: "text", type: .string),
                RelationshipDescription(name: "sharing", destination: "Post", inverse: "sharedFrom"),
                sharedFrom, author,
            ]),
            EntityDescription(name: "Writer", properties: [AttributeDescription(name: "name", type: .string), posts]),
        ])
    }

    static func context(_ model: ManagedObjectModel, in folder: TemporaryFolder) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("posts.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func anEmptyRequiredToManySavesAndReadsBackEmpty() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(Self.model(), in: folder)
        try context.performAndWait {
            let writer = try context.insertNewObject(forEntityName: "Writer")
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("first", forKey: "text")
            post.setValue(writer, forKey: "author")
            #expect(Validation.failures(forValue: Set<ManagedObject>(), key: "sharedFrom", of: post).isEmpty)
            try context.save()
            context.reset()
            let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: "Post"))
            #expect(fetched.count == 1)
            #expect((fetched.first?.value(forKey: "sharedFrom") as? Set<ManagedObject>)?.isEmpty == true)
        }
    }

    @Test func aRequiredToOneStillNeedsItsObject() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(Self.model(), in: folder)
        context.performAndWait {
            _ = try? context.insertNewObject(forEntityName: "Post")
            do {
                try context.save()
                Issue.record("a post without its required author was saved")
            } catch {
                #expect("\(error)".contains("Post.author"))
                #expect("\(error)".contains("a value is required"))
                #expect(!"\(error)".contains("Post.sharedFrom"))
            }
        }
    }

    @Test func aMinimumCountStillAsksForObjects() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(Self.model(minimumSharers: 1), in: folder)
        context.performAndWait {
            let writer = try? context.insertNewObject(forEntityName: "Writer")
            let post = try? context.insertNewObject(forEntityName: "Post")
            post?.setValue(writer, forKey: "author")
            do {
                try context.save()
                Issue.record("a post under its minimum count was saved")
            } catch {
                #expect("\(error)".contains("Post.sharedFrom"))
                #expect("\(error)".contains("fewer than the minimum 1"))
            }
        }
    }
}

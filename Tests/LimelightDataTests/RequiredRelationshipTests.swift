import Foundation
import Testing
@testable import LimelightData

/// What a required relationship asks of a save, as Core Data has it: a to-one needs its object; a
/// to-many may be empty unless its minimum count says otherwise, since it is never absent.
@Suite struct RequiredRelationshipTests {
    /// A post needs an author; an author's posts and followers are required but may be empty (as
    /// Xcode writes a to-many with *Optional* unticked); a thread needs two posts at least.
    static func model() -> ManagedObjectModel {
        let thread = RelationshipDescription(name: "posts", destination: "Post", inverse: "thread", toMany: true, isOptional: false)
        thread.minCount = 2
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Author", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "posts", destination: "Post", inverse: "author", toMany: true, isOptional: false),
                RelationshipDescription(name: "followers", destination: "Author", inverse: "following", toMany: true, isOptional: false),
                RelationshipDescription(name: "following", destination: "Author", inverse: "followers", toMany: true, isOptional: false),
            ]),
            EntityDescription(name: "Post", properties: [
                AttributeDescription(name: "text", type: .string),
                RelationshipDescription(name: "author", destination: "Author", inverse: "posts", isOptional: false),
                RelationshipDescription(name: "thread", destination: "Thread", inverse: "posts"),
            ]),
            EntityDescription(name: "Thread", properties: [thread]),
        ])
    }

    @Test func anEmptyRequiredToManySavesAndAMissingToOneDoesNot() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("posts.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        let author = try context.insertNewObject(forEntityName: "Author")
        author.setValue("Ann", forKey: "name")
        #expect(throws: Never.self) { try author.validateValue(author.value(forKey: "followers"), forKey: "followers") }
        try context.save()

        let post = try context.insertNewObject(forEntityName: "Post")
        post.setValue("orphan", forKey: "text")
        #expect { try context.save() } throws: { "\($0)".contains("Post.author") && "\($0)".contains("a value is required") }
        post.setValue(author, forKey: "author")
        try context.save()

        // The minimum count still asks for objects, empty or not.
        let thread = try context.insertNewObject(forEntityName: "Thread")
        thread.mutableSetValue(forKey: "posts").insert(post)
        #expect { try context.save() } throws: { "\($0)".contains("Thread.posts") && "\($0)".contains("fewer than the minimum 2") }
        context.delete(thread)
        try context.save()

        let reader = try TestStack.context(model: Self.model(), at: url)
        #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Author")) == 1)
        #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Post")) == 1)
    }
}

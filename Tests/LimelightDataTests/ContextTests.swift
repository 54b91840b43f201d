import Foundation
import Testing
@testable import LimelightData

/// Contexts: relationships and inverses, delete rules, optimistic locking, notifications,
/// faulting, undo of inserts and deletes, rollback, the in-memory store, and queue confinement.
@Suite struct ContextTests {
    static func model() -> ManagedObjectModel {
        let post = EntityDescription(name: "Post", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "posts", toMany: true),
            RelationshipDescription(name: "comments", destination: "Comment", inverse: "post", toMany: true, deleteRule: .cascade),
            RelationshipDescription(name: "author", destination: "Author", inverse: "posts"),
        ])
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "posts", destination: "Post", inverse: "tags", toMany: true),
        ])
        let comment = EntityDescription(name: "Comment", properties: [
            AttributeDescription(name: "text", type: .string),
            RelationshipDescription(name: "post", destination: "Post", inverse: "comments"),
        ])
        let author = EntityDescription(name: "Author", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "posts", destination: "Post", inverse: "author", toMany: true, deleteRule: .deny),
        ])
        return ManagedObjectModel(entities: [post, tag, comment, author])
    }

    func stack(_ url: URL?, coordinator: PersistentStoreCoordinator? = nil) throws -> ManagedObjectContext {
        let coordinator = try coordinator ?? {
            let made = try PersistentStoreCoordinator(managedObjectModel: Self.model())
            if let url { try made.addPersistentStore(type: .sqlite, at: url) } else { try made.addPersistentStore(type: .inMemory) }
            return made
        }()
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    func run(_ url: URL?) throws {
        let context = try stack(url)
        let post = try context.insertNewObject(forEntityName: "Post")
        post.setValue("Hello", forKey: "title")
        let swift = try context.insertNewObject(forEntityName: "Tag"), linux = try context.insertNewObject(forEntityName: "Tag")
        swift.setValue("swift", forKey: "name")
        linux.setValue("linux", forKey: "name")
        post.mutableSetValue(forKey: "tags").insert(swift)
        post.mutableSetValue(forKey: "tags").insert(linux)
        #expect((swift.value(forKey: "posts") as? Set<ManagedObject>) == [post])
        let comment = try context.insertNewObject(forEntityName: "Comment")
        comment.setValue(post, forKey: "post")
        #expect((post.value(forKey: "comments") as? Set<ManagedObject>)?.count == 1)
        try context.save()

        if let url {
            let other = try stack(url)
            let fetched = try #require(try other.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            let tags = try #require(fetched.value(forKey: "tags") as? Set<ManagedObject>)
            #expect(Set(tags.compactMap { $0.value(forKey: "name") as? String }) == ["swift", "linux"])
            // Optimistic locking: another context saves first; this one's save fails, naming the object.
            fetched.setValue("Changed elsewhere", forKey: "title")
            try other.save()
            post.setValue("Changed here", forKey: "title")
            #expect { try context.save() } throws: { error in
                guard case PersistenceError.conflict(let ids) = error else { return false }
                return ids == [post.objectID]
            }
            context.refresh(post, mergeChanges: false)
            #expect(post.isFault)
            #expect(post.value(forKey: "title") as? String == "Changed elsewhere")
        }

        // Cascade deletes the comments; Nullify takes the post out of its tags.
        context.delete(post)
        #expect(comment.isDeleted)
        #expect((swift.value(forKey: "posts") as? Set<ManagedObject>)?.isEmpty == true)
        try context.save()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Comment")) == 0)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag")) == 2)

        // Deny: an author with posts cannot be deleted.
        let author = try context.insertNewObject(forEntityName: "Author")
        let second = try context.insertNewObject(forEntityName: "Post")
        second.setValue(author, forKey: "author")
        try context.save()
        context.delete(author)
        #expect(throws: ValidationError.self) { try context.save() }
        context.rollback()
        #expect(!author.isDeleted)
    }

    @Test func relationshipsDeleteRulesAndLockingInSQLite() throws {
        let folder = try TemporaryFolder()
        try run(folder.file("blog.sqlite"))
    }

    @Test func theSameInTheInMemoryStore() throws {
        try run(nil)
    }

    @Test func notificationsUndoOfInsertsAndDeletesAndFetchesSeePendingChanges() throws {
        let context = try stack(nil)
        var events: [(ContextEvent, Int, Int, Int)] = []
        context.addObserver { event, changes in events.append((event, changes.inserted.count, changes.updated.count, changes.deleted.count)) }
        let tag = try context.insertNewObject(forEntityName: "Tag")
        tag.setValue("a", forKey: "name")
        context.processPendingChanges()
        #expect(events.last.map { $0.0 == .objectsDidChange && $0.1 == 1 } == true)
        let request = FetchRequest<ManagedObject>(entityName: "Tag", predicate: try QueryPredicate(format: "name == 'a'"))
        #expect(try context.fetch(request) == [tag])
        try context.save()
        #expect(events.contains { $0.0 == .willSave })
        #expect(events.last.map { $0.0 == .didSave && $0.1 == 1 } == true)

        context.delete(tag)
        #expect(try context.fetch(request).isEmpty)
        context.undo()
        #expect(!tag.isDeleted)
        #expect(try context.fetch(request) == [tag])
        let extra = try context.insertNewObject(forEntityName: "Tag")
        context.undo()
        #expect(extra.isDeleted || extra.managedObjectContext == nil || !context.insertedObjects.contains(extra))
        tag.setValue("b", forKey: "name")
        #expect(try context.fetch(request).isEmpty)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag", predicate: try QueryPredicate(format: "name == 'b'"))) == 1)
    }

    @Test func undoingTheDeletionOfAnUnsavedObjectKeepsItsRelationships() throws {
        let context = try stack(nil)
        let post = try context.insertNewObject(forEntityName: "Post")
        post.setValue("Draft", forKey: "title")
        let tags = try (0..<2).map { _ in try context.insertNewObject(forEntityName: "Tag") }
        post.setValue(Set(tags), forKey: "tags")
        context.processPendingChanges()
        context.delete(post)
        context.undo()
        // The object comes back as it was: not a first insert, so no defaults overwrite its values.
        #expect(post.isInserted && !post.isDeleted)
        #expect(post.value(forKey: "title") as? String == "Draft")
        #expect((post.value(forKey: "tags") as? Set<ManagedObject>) == Set(tags))
    }

    @Test func unchangedObjectsAreNotKeptAlive() throws {
        let folder = try TemporaryFolder()
        let context = try stack(folder.file("x.sqlite"))
        for index in 0..<50 {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("t\(index)", forKey: "name")
        }
        try context.save()
        context.reset()
        do {
            let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag"))
            #expect(fetched.count == 50)
            try context.fireFaults(fetched)
            #expect(fetched.allSatisfy { !$0.isFault })
        }
        #expect(context.registeredObjects.isEmpty)
    }

    @Test func aDeletedObjectLeavesItsContextOnceTheDeletionIsSaved() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("deleted.sqlite")
        let context = try stack(url)
        let post = try context.insertNewObject(forEntityName: "Post")
        post.setValue("Gone", forKey: "title")
        let comment = try context.insertNewObject(forEntityName: "Comment")
        comment.setValue(post, forKey: "post")
        let kept = try context.insertNewObject(forEntityName: "Tag")
        try context.save()
        let postID = post.objectID

        context.delete(post)
        // Until the save the deletion is pending: both objects are still the context's.
        #expect(post.managedObjectContext === context)
        #expect(comment.managedObjectContext === context)
        var savedDeletions: Set<ManagedObject> = []
        context.addObserver { event, changes in if event == .didSave { savedDeletions = changes.deleted } }
        try context.save()
        #expect(savedDeletions == [post, comment])
        // The post and the comment its cascade deleted have left; the untouched tag has not.
        #expect(post.managedObjectContext == nil)
        #expect(comment.managedObjectContext == nil)
        #expect(!post.isDeleted)
        #expect(kept.managedObjectContext === context)
        #expect(!context.registeredObjects.contains(post))
        #expect(throws: (any Error).self) { try context.existingObject(with: postID) }
        #expect(try stack(url).count(for: FetchRequest<ManagedObject>(entityName: "Post")) == 0)

        // Undoing the saved deletion gives the object back to the context as a new object under
        // its old ID, and the next save writes its row again with its values and relationships.
        context.undo()
        #expect(post.managedObjectContext === context)
        #expect(context.registeredObjects.contains(post))
        #expect(post.isInserted && comment.isInserted)
        #expect(!post.isUpdated)
        #expect(post.objectID == postID)
        try context.save()
        #expect(!post.isInserted)
        let reader = try stack(url)
        let posts = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Post"))
        // Another coordinator's IDs: compared by URI.
        #expect(posts.map(\.objectID.uriString) == [postID.uriString])
        #expect(posts.first?.value(forKey: "title") as? String == "Gone")
        let comments = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Comment"))
        #expect(comments.count == 1)
        #expect((comments.first?.value(forKey: "post") as? ManagedObject)?.objectID.uriString == postID.uriString)
    }

    @Test func performRunsOnTheContextsQueue() async throws {
        let context = try stack(nil)
        let id = try await context.perform {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("queued", forKey: "name")
            try context.save()
            return tag.objectID
        }
        #expect(!id.isTemporaryID)
        let name = context.performAndWait { context.object(with: id).value(forKey: "name") as? String }
        #expect(name == "queued")
    }

    @Test func temporaryIDsAreDistinctVersion4UUIDs() throws {
        let context = try stack(nil)
        let tags = try (0..<1000).map { _ in try context.insertNewObject(forEntityName: "Tag") }
        let uris = tags.map { $0.objectID.uriRepresentation().absoluteString }
        #expect(Set(uris).count == tags.count)
        for tag in tags.prefix(50) {
            #expect(tag.objectID.isTemporaryID)
            // x-coredata:///Tag/t<UUID>
            let uuid = try #require(UUID(uuidString: String(tag.objectID.uriRepresentation().lastPathComponent.dropFirst())))
            // Version 4 (random), variant RFC 4122.
            #expect(uuid.uuid.6 >> 4 == 4)
            #expect(uuid.uuid.8 >> 6 == 0b10)
        }
    }
}

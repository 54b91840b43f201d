import Foundation
import Testing
@testable import LimelightData

/// What each object of the graph carries: one heap block of 136 bytes (144 from malloc, where it
/// was 216 and 224), with the state few objects need made apart on first use, and the row a fault
/// is fetched with kept without a second copy of its ID.
@Suite struct ObjectFootprintTests {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Folder", properties: [
                AttributeDescription(name: "title", type: .string),
                RelationshipDescription(name: "notes", destination: "Note", inverse: "folder", toMany: true),
            ]),
            EntityDescription(name: "Note", properties: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "size", type: .integer64),
                RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
            ]),
        ])
    }

    static func context(_ url: URL) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The usable size of the heap block an object lives in, from glibc's `malloc_usable_size`
    /// (found at run time: the C library's module does not export `malloc.h`).
    static func heapBlock(of object: AnyObject) throws -> Int {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let symbol = try #require(dlsym(nil, "malloc_usable_size"))
        return unsafeBitCast(symbol, to: UsableSize.self)(Unmanaged.passUnretained(object).toOpaque())
    }

    @Test func insertedAndFetchedObjectsTakeOneSmallBlock() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder.file("notes.sqlite"))
        let note = try context.insertNewObject(forEntityName: "Note")
        note.setValue("groceries", forKey: "title")
        #expect(try Self.heapBlock(of: note) <= 136)
        #expect(note.rareState == nil)
        try context.save()

        let reader = try Self.context(folder.file("notes.sqlite"))
        let fetched = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
        let first = try #require(fetched.first)
        #expect(try Self.heapBlock(of: first) <= 136)
        #expect(first.rareState == nil)
        #expect(first.value(forKey: "title") as? String == "groceries")
    }

    /// Prefetched objects, fetched properties' results and observers live in the rare state: made
    /// when the first is set, gone when the last is emptied, and never made to store nothing.
    @Test func rareStateIsMadeOnFirstUseAndGoesWhenEmpty() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder.file("notes.sqlite"))
        let owner = try context.insertNewObject(forEntityName: "Folder")
        let note = try context.insertNewObject(forEntityName: "Note")

        owner.prefetchedObjects = [:]
        owner.fetchedResults = [:]
        owner.keyValueObservers = nil
        #expect(owner.rareState == nil)

        owner.prefetchedObjects["notes"] = [note]
        #expect(owner.rareState != nil)
        #expect(owner.prefetchedObjects["notes"]?.first === note)

        var heard = 0
        let observation = try owner.observe(forKeyPath: "title") { _, _ in heard += 1 }
        owner.prefetchedObjects = [:]
        #expect(owner.rareState != nil, "the observer still needs it")
        owner.setValue("Errands", forKey: "title")
        context.processPendingChanges()
        owner.setValue("Chores", forKey: "title")
        #expect(heard >= 1)
        observation.invalidate()
        #expect(owner.keyValueObservers == nil)
        #expect(owner.rareState == nil)
    }

    /// A fault fetched with its row keeps only the row's values and version: firing it gives the
    /// row as it was read, and the version it was read at is what a later save is checked
    /// against, so a change saved meanwhile by another context is a conflict.
    @Test func aFaultsCachedRowKeepsItsValuesAndVersion() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let writer = try Self.context(url)
        let note = try writer.insertNewObject(forEntityName: "Note")
        note.setValue("draft", forKey: "title")
        note.setValue(Int64(1), forKey: "size")
        try writer.save()

        let reader = try Self.context(url)
        let request = FetchRequest<ManagedObject>(entityName: "Note")
        request.returnsObjectsAsFaults = true
        let fault = try #require(try reader.fetch(request).first)
        #expect(fault.isFault)
        #expect(fault.cachedRowValues != nil)

        note.setValue("final", forKey: "title")
        try writer.save()

        // The row came with the fetch: firing reads it, not the store's newer one.
        #expect(fault.value(forKey: "title") as? String == "draft")
        #expect(fault.cachedRowValues == nil)
        #expect(!fault.isFault)
        fault.setValue(Int64(2), forKey: "size")
        #expect(throws: PersistenceError.self) { try reader.save() }
    }
}

import Foundation
import Testing
@testable import LimelightData

/// Walking a to-many fires its objects' faults with the relationship's own query (the foreign
/// key's index, or the join table), once, however many objects it holds; objects that changed or
/// left the relationship meanwhile keep their own state.
@Suite struct RelationshipFaultingTests {
    static func model() -> ManagedObjectModel {
        let folder = EntityDescription(name: "Folder", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", inverse: "folder", toMany: true),
        ])
        let note = EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "size", type: .integer64),
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true),
        ])
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true),
        ])
        return ManagedObjectModel(entities: [folder, note, tag])
    }

    static func context(_ url: URL) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return context
    }

    /// Two folders; the first holds more notes than one batch of faults (500), the last three
    /// of which carry tags.
    static let noteCount = 1_200

    static func fill(_ url: URL) throws {
        let context = try context(url)
        let inbox = try context.insertNewObject(forEntityName: "Folder")
        inbox.setValue("inbox", forKey: "title")
        let archive = try context.insertNewObject(forEntityName: "Folder")
        archive.setValue("archive", forKey: "title")
        let tags = try ["red", "green"].map { name in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(name, forKey: "name")
            return tag
        }
        for index in 0..<noteCount {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue("note \(index)", forKey: "title")
            note.setValue(Int64(index), forKey: "size")
            note.setValue(inbox, forKey: "folder")
            if index >= noteCount - 3 { note.setValue(Set(tags), forKey: "tags") }
        }
        try context.save()
    }

    static func folder(_ title: String, in context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: "Folder", predicate: try QueryPredicate(format: "title == %@", title))
        guard let folder = try context.fetch(request).first else { throw PersistenceError.invalidRequest("no folder \(title)") }
        return folder
    }

    static func note(_ title: String, in context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: "Note", predicate: try QueryPredicate(format: "title == %@", title))
        guard let note = try context.fetch(request).first else { throw PersistenceError.invalidRequest("no note \(title)") }
        return note
    }

    @Test func walkingAToManyFiresAllItsFaultsWithOneQueryOnTheForeignKey() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.fill(url)
        let context = try Self.context(url)
        let log = try StatementLog(context)
        let inbox = try Self.folder("inbox", in: context)
        let notes = try #require(inbox.value(forKey: "notes") as? Set<ManagedObject>)
        #expect(notes.count == Self.noteCount)
        #expect(notes.allSatisfy { $0.isFault })
        let (sizes, statements) = log.during { notes.map { $0.value(forKey: "size") as? Int64 ?? -1 } }
        #expect(statements.count == 1)
        #expect(statements.first?.hasSuffix("FROM ZNOTE t0 WHERE t0.ZFOLDER = ?") == true)
        #expect(Set(sizes) == Set((0..<Int64(Self.noteCount))))
        #expect(notes.allSatisfy { !$0.isFault })
    }

    @Test func aManyToManyFiresThroughItsJoinTable() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("tags.sqlite")
        try Self.fill(url)
        let context = try Self.context(url)
        let log = try StatementLog(context)
        let red = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag", predicate: try QueryPredicate(format: "name == 'red'"))).first)
        let notes = try #require(red.value(forKey: "notes") as? Set<ManagedObject>)
        let (titles, statements) = log.during { Set(notes.compactMap { $0.value(forKey: "title") as? String }) }
        #expect(statements.count == 1)
        #expect(statements.first?.contains("JOIN ZNOTE t0 ON t0.Z_PK = j.") == true)
        #expect(titles == Set((Self.noteCount - 3..<Self.noteCount).map { "note \($0)" }))
    }

    @Test func objectsChangedOrMovedMeanwhileKeepTheirOwnState() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("moved.sqlite")
        try Self.fill(url)
        let context = try Self.context(url)
        let inbox = try Self.folder("inbox", in: context)
        let notes = try #require(inbox.value(forKey: "notes") as? Set<ManagedObject>)
        let byTitle = { (title: String) in
            try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: try QueryPredicate(format: "title == %@", title))).first)
        }
        // One note is loaded and changed here before the walk; it must keep the unsaved title.
        let edited = try byTitle("note 7")
        #expect(notes.contains(edited))
        edited.setValue("edited here", forKey: "title")
        // Another context moves one note to the archive and renames it; this context still holds
        // the note as a fault of the inbox's set, so it fires on its own and reads the new row.
        let moved = try #require(notes.first { $0.isFault })
        let other = try Self.context(url)
        let movedID = try #require(other.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: moved.objectID.uriRepresentation()))
        let movedThere = try other.existingObject(with: movedID)
        movedThere.setValue(try Self.folder("archive", in: other), forKey: "folder")
        movedThere.setValue("moved there", forKey: "title")
        try other.save()

        let titles = notes.compactMap { $0.value(forKey: "title") as? String }
        #expect(titles.count == Self.noteCount)
        #expect(edited.value(forKey: "title") as? String == "edited here")
        #expect(moved.value(forKey: "title") as? String == "moved there")
        #expect(!moved.isFault)
        #expect(edited.isUpdated)
        #expect(Set(titles).count == Self.noteCount)
    }

    /// A note another context deletes after this one read the to-many (its ID query) but before
    /// any member fired: the relationship's query no longer returns its row, so it stays a fault
    /// and, touched, reads as deleted; the others load as usual.
    @Test func aMemberDeletedInTheStoreBeforeTheWalkReadsAsDeleted() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("deleted.sqlite")
        try Self.fill(url)
        let context = try Self.context(url)
        let inbox = try Self.folder("inbox", in: context)
        let notes = try #require(inbox.value(forKey: "notes") as? Set<ManagedObject>)
        let other = try Self.context(url)
        let victim = try #require(try other.fetch(FetchRequest<ManagedObject>(entityName: "Note",
            predicate: try QueryPredicate(format: "title == 'note 42'"))).first)
        let victimURI = victim.objectID.uriRepresentation()
        other.delete(victim)
        try other.save()

        let deleted = try #require(notes.first { $0.objectID.uriRepresentation() == victimURI })
        // Touch another member first, so the relationship's query runs without the deleted row.
        let first = try #require(notes.first { $0 !== deleted })
        #expect(first.value(forKey: "title") is String)
        #expect(deleted.isFault)
        #expect(notes.filter { $0 !== deleted }.allSatisfy { !$0.isFault })
        #expect(deleted.value(forKey: "title") == nil)
        #expect(deleted.isDeleted)
        let titles = notes.compactMap { $0.value(forKey: "title") as? String }
        #expect(titles.count == Self.noteCount - 1)
        #expect(!titles.contains("note 42"))
    }

    /// Notes registered here before the to-many is read: one loaded and changed keeps its unsaved
    /// value and its saved snapshot, one registered as a fault joins the batch and loads with the
    /// others, one loaded and unchanged keeps its values.
    @Test func membersRegisteredBeforeTheToManyKeepTheirState() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("registered.sqlite")
        try Self.fill(url)
        let context = try Self.context(url)
        let note = { (title: String) in try Self.note(title, in: context) }
        let edited = try note("note 7")
        edited.setValue("edited here", forKey: "title")
        edited.setValue(Int64(-7), forKey: "size")
        let loaded = try note("note 8")
        let faultID = try note("note 9").objectID
        context.refresh(try note("note 9"), mergeChanges: false)
        let fault = context.object(with: faultID)
        #expect(fault.isFault)

        let log = try StatementLog(context)
        let inbox = try Self.folder("inbox", in: context)
        let notes = try #require(inbox.value(forKey: "notes") as? Set<ManagedObject>)
        #expect(notes.contains(edited) && notes.contains(loaded) && notes.contains(fault))
        #expect(fault.isFault)
        let (sizes, statements) = log.during { notes.map { $0.value(forKey: "size") as? Int64 ?? 0 } }
        #expect(statements.count == 1)
        #expect(sizes.count == Self.noteCount)
        #expect(sizes.contains(-7) && !sizes.contains(7))
        #expect(fault.value(forKey: "title") as? String == "note 9")
        #expect(loaded.value(forKey: "title") as? String == "note 8")
        #expect(edited.value(forKey: "title") as? String == "edited here")
        #expect(edited.isUpdated)
        #expect(edited.committedValues(forKeys: ["title"])["title"] as? String == "note 7")
        #expect(Set(edited.changedValues().keys) == ["title", "size"])
        #expect(context.updatedObjects == [edited])
    }

    /// In a child context the parent's unsaved state stands for the store's: a note the parent
    /// changed reads with the parent's value, one it deleted is not among the members, and the
    /// rest load from the relationship's query.
    @Test func aChildWalksItsParentsUnsavedState() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("child.sqlite")
        try Self.fill(url)
        let parent = try Self.context(url)
        let note = { (title: String) in try Self.note(title, in: parent) }
        try note("note 3").setValue("changed in the parent", forKey: "title")
        parent.delete(try note("note 4"))

        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let inbox = try Self.folder("inbox", in: child)
        let notes = try #require(inbox.value(forKey: "notes") as? Set<ManagedObject>)
        let titles = notes.compactMap { $0.value(forKey: "title") as? String }
        #expect(titles.count == Self.noteCount - 1)
        #expect(titles.contains("changed in the parent"))
        #expect(!titles.contains("note 3") && !titles.contains("note 4"))
        #expect(!child.hasChanges)
    }

    /// An ordered to-many whose order is not its members' key order: the relationship's rows come
    /// in another order than its IDs, and each still loads into its own member, with one query.
    @Test func anOrderedToManyInAnotherOrderThanItsKeysLoadsEachMemberItsOwnRow() throws {
        let songs = RelationshipDescription(name: "songs", destination: "Song", inverse: "playlist", toMany: true)
        songs.isOrdered = true
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Playlist", properties: [AttributeDescription(name: "name", type: .string), songs]),
            EntityDescription(name: "Song", properties: [
                AttributeDescription(name: "title", type: .string),
                RelationshipDescription(name: "playlist", destination: "Playlist", inverse: "songs"),
            ]),
        ])
        let folder = try TemporaryFolder()
        let url = folder.file("ordered.sqlite")
        func context() throws -> ManagedObjectContext {
            let context = try TestStack.context(model: model, at: url)
            context.undoManager = nil
            return context
        }
        let writer = try context()
        let playlist = try writer.insertNewObject(forEntityName: "Playlist")
        playlist.setValue("mix", forKey: "name")
        let made = try (0..<300).map { index in
            let song = try writer.insertNewObject(forEntityName: "Song")
            song.setValue("song \(index)", forKey: "title")
            return song
        }
        // Every third song first, then the rest backwards: neither key order nor its reverse.
        let order = stride(from: 0, to: 300, by: 3).map { $0 } + (0..<300).reversed().filter { $0 % 3 != 0 }
        playlist.setValue(order.map { made[$0] }, forKey: "songs")
        try writer.save()

        let reader = try context()
        let log = try StatementLog(reader)
        let mix = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Playlist")).first)
        let members = try #require(mix.value(forKey: "songs") as? [ManagedObject])
        #expect(members.allSatisfy { $0.isFault })
        let (titles, statements) = log.during { members.map { $0.value(forKey: "title") as? String ?? "" } }
        #expect(statements.count == 1)
        #expect(titles == order.map { "song \($0)" })
    }
}

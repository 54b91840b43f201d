import Foundation
import Testing
@testable import LimelightData

/// The context's settings Core Data apps set: how stale a fault's row may be, whether registered
/// objects are kept, when delete rules run, which unchanged objects a save checks, `userInfo`,
/// and how `perform(schedule:_:)` runs its block.
struct ContextSettingsTests {
    /// A store with notes titled "Old" and a second coordinator on the same file, as another
    /// program would be.
    struct Stack {
        let folder: TemporaryFolder
        let url: URL
        let model = ObjectEventTests.model()

        init(notes: Int = 2) throws {
            folder = try TemporaryFolder()
            url = folder.file("notes.sqlite")
            let context = try TestStack.context(model: model, at: url)
            try context.performAndWait {
                for _ in 0..<notes { try context.insertNewObject(forEntityName: "SnapshotNote").setValue("Old", forKey: "title") }
                try context.save()
            }
        }

        func context() throws -> ManagedObjectContext { try TestStack.context(model: model, at: url) }

        /// How many objects of `entity` the store holds, read through a new coordinator.
        func count(_ entity: String) throws -> Int {
            let reader = try context()
            return try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: entity)) }
        }

        /// Retitles every note through another coordinator.
        func retitleElsewhere(_ title: String) throws {
            let other = try context()
            try other.performAndWait {
                for note in try other.fetch(FetchRequest<ManagedObject>(entityName: "SnapshotNote")) { note.setValue(title, forKey: "title") }
                try other.save()
            }
        }
    }

    /// The titles the faults of a fetch made before `change` show once touched.
    func titlesAfterFiring(_ stack: Stack, staleness: TimeInterval?, turnedOnAfterFetch: Bool = false,
                           wait: TimeInterval = 0, change: String) throws -> [String] {
        let context = try stack.context()
        return try context.performAndWait {
            if let staleness, !turnedOnAfterFetch { context.stalenessInterval = staleness }
            let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "SnapshotNote"))
            #expect(notes.allSatisfy { $0.isFault })
            if let staleness, turnedOnAfterFetch { context.stalenessInterval = staleness }
            try stack.retitleElsewhere(change)
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            return notes.map { $0.value(forKey: "title") as? String ?? "" }
        }
    }

    @Test func stalenessDecidesWhetherAFaultUsesTheRowItWasFetchedWith() throws {
        let stack = try Stack()
        // Negative (the default): the rows fetched with the faults, however old.
        #expect(try titlesAfterFiring(stack, staleness: nil, change: "New 1") == ["Old", "Old"])
        // 0: every fault reads its store.
        #expect(try titlesAfterFiring(stack, staleness: 0, change: "New 2") == ["New 2", "New 2"])
        // An hour: rows read just now are fresh enough.
        #expect(try titlesAfterFiring(stack, staleness: 3600, change: "New 3") == ["New 2", "New 2"])
        // A microsecond, touched after waiting longer: read again.
        #expect(try titlesAfterFiring(stack, staleness: 0.000_001, wait: 0.01, change: "New 4") == ["New 4", "New 4"])
        // Turned on after the fetch: the rows' age is not known, so they are read again.
        #expect(try titlesAfterFiring(stack, staleness: 3600, turnedOnAfterFetch: true, change: "New 5") == ["New 5", "New 5"])
    }

    @Test func registeredObjectsAreKeptOnlyWhenAsked() throws {
        let stack = try Stack(notes: 3)
        let context = try stack.context()
        // Undo keeps what it could bring back: off here, so only the setting keeps objects.
        context.undoManager = nil
        try context.performAndWait {
            _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "SnapshotNote"))
            #expect(context.registeredObjects.isEmpty)
            context.retainsRegisteredObjects = true
            _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "SnapshotNote"))
            _ = try context.insertNewObject(forEntityName: "NoteFolder")
            try context.save()
            #expect(context.registeredObjects.count == 4)
            context.retainsRegisteredObjects = false
            #expect(context.registeredObjects.isEmpty)
        }
    }

    @Test func deleteRulesWaitForTheSaveWhenAsked() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try TestStack.context(model: ObjectEventTests.model(), at: url)
        try context.performAndWait {
            let inbox = try context.insertNewObject(forEntityName: "NoteFolder"), archive = try context.insertNewObject(forEntityName: "NoteFolder")
            let first = try context.insertNewObject(forEntityName: "SnapshotNote"), second = try context.insertNewObject(forEntityName: "SnapshotNote")
            first.setValue(inbox, forKey: "folder")
            second.setValue(archive, forKey: "folder")
            try context.save()

            // By default the Nullify rule runs as the folder is deleted.
            context.delete(inbox)
            #expect(first.value(forKey: "folder") == nil)

            context.propagatesDeletesAtEndOfEvent = false
            context.delete(archive)
            context.processPendingChanges()
            #expect(second.value(forKey: "folder") as? ManagedObject === archive)
            try context.save()
            #expect(second.value(forKey: "folder") == nil)
        }
        let reader = try TestStack.context(model: ObjectEventTests.model(), at: url)
        try reader.performAndWait {
            let notes = try reader.fetch(FetchRequest<ManagedObject>(entityName: "SnapshotNote"))
            #expect(notes.count == 2 && notes.allSatisfy { $0.value(forKey: "folder") == nil })
            #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "NoteFolder")) == 0)
        }
    }

    @Test func anUnchangedObjectCanBeCheckedForConflicts() throws {
        let stack = try Stack(notes: 1)
        let context = try stack.context()
        let other = try stack.context()
        let noteID = try context.performAndWait { try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "SnapshotNote")).first).objectID }
        let othersNote = try other.performAndWait { try other.existingObject(with: noteID) }
        try context.performAndWait {
            let note = try context.existingObject(with: noteID)
            // Unchanged in the store: the save passes and writes nothing for the note.
            context.detectConflicts(for: note)
            try context.save()
            try other.performAndWait {
                othersNote.setValue("Theirs", forKey: "title")
                try other.save()   // would conflict had the check moved the note's version
            }

            context.detectConflicts(for: note)
            try context.insertNewObject(forEntityName: "NoteFolder").setValue("New", forKey: "name")
            #expect(throws: PersistenceError.self) { try context.save() }
            #expect(try stack.count("NoteFolder") == 0)

            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
            #expect(note.value(forKey: "title") as? String == "Theirs")
            #expect(try stack.count("NoteFolder") == 1)
        }
    }

    @Test func userInfoIsTheApplications() throws {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.userInfo["importer"] = "nightly"
        #expect(context.userInfo["importer"] as? String == "nightly")
    }

    @MainActor @Test func performRunsAtOnceOnTheQueueOrQueuedWhenAsked() async throws {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        let order = OrderLog()
        DispatchQueue.main.async { order.append("queued before") }
        let immediate = try await context.perform { order.append("immediate"); return 1 }
        #expect(immediate == 1 && order.entries == ["immediate"])
        DispatchQueue.main.async { order.append("queued after") }
        let enqueued = try await context.perform(schedule: .enqueued) { order.append("enqueued"); return 2 }
        #expect(enqueued == 2)
        #expect(order.entries == ["immediate", "queued before", "queued after", "enqueued"])
    }
}

/// Entries appended from blocks on any queue.
final class OrderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ entry: String) { lock.withLock { stored.append(entry) } }
    var entries: [String] { lock.withLock { stored } }
}

import Foundation
import Testing
@testable import LimelightData

/// The background marker writer: markers follow `save()`, the flush waits for them, small and
/// large passes (flushed file by file or with syncfs) both finish, several writers (coordinators,
/// processes) on one store end with exact markers, and an unusable records folder only delays the
/// work.
@Suite(.serialized) struct MarkerWriterTests {
    let helpers = MarkerTests()

    /// Rows in the marker journal: work saved but not yet carried out.
    func journalCount(_ url: URL) throws -> Int64 {
        let db = try SQLiteConnection(path: url.path, readOnly: true)
        defer { db.close() }
        return try db.scalarInt("SELECT count(*) FROM \(MarkerJournal.table)") ?? -1
    }

    /// Expects the markers to be exactly the notes in the store, each with its current title.
    func expectExactMarkers(_ context: ManagedObjectContext, _ comment: Comment? = nil) throws {
        context.reset()
        let rows = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
        let files = try helpers.markers(context)
        #expect(Set(files.keys) == Set(rows.compactMap(\.objectID.primaryKey)), comment)
        for row in rows {
            #expect(files[row.objectID.primaryKey ?? 0]?.values["title"] as? String == row.value(forKey: "title") as? String, comment)
        }
    }

    /// Inserts `count` notes titled "<prefix> <n>" into `context`.
    func insertNotes(_ count: Int, titled prefix: String = "note", into context: ManagedObjectContext) throws {
        for number in 0..<count {
            try context.insertNewObject(forEntityName: "Note").setValue("\(prefix) \(number)", forKey: "title")
        }
    }

    @Test func markersAreOnDiskAfterTheFlushAndTheJournalIsEmpty() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try helpers.open(url)
        try insertNotes(300, into: context)
        try context.save()
        try helpers.flush(context)
        #expect(try helpers.markers(context).count == 300)
        #expect(try journalCount(url) == 0)
        try expectExactMarkers(context)
    }

    /// The folder markers of `context`'s store are written to.
    func noteFolder(_ context: ManagedObjectContext) throws -> URL {
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        return try #require(store.externalRecordsConfiguration).recordsRoot(storeIdentifier: store.identifier).appendingPathComponent("Note")
    }

    @Test func smallPassesBelowAndLargePassesAboveTheFileSyncLimitBothFinish() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try helpers.open(url)
        // Flushed file by file: inserts, then an update and a delete in one pass.
        try insertNotes(3, into: context)
        try context.save()
        try helpers.flush(context)
        #expect(try journalCount(url) == 0)
        let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
        notes[0].setValue("changed", forKey: "title")
        context.delete(notes[1])
        try context.save()
        try helpers.flush(context)
        #expect(try journalCount(url) == 0)
        try expectExactMarkers(context, "small passes")
        // One more than the limit in one save: flushed with syncfs.
        try insertNotes(MarkerWriter.fileSyncLimit + 1, titled: "many", into: context)
        try context.save()
        try helpers.flush(context)
        #expect(try journalCount(url) == 0)
        try expectExactMarkers(context, "a large pass")
    }

    @Test func aSmallPassRecreatesAMissingFolderAndFinishesRemovalsFromOne() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try helpers.open(url)
        try insertNotes(2, into: context)
        try context.save()
        try helpers.flush(context)
        let notes = try noteFolder(context)

        // The entity folder is gone: removing a marker that was in it is already done.
        try FileManager.default.removeItem(at: notes)
        let doomed = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))[0]
        context.delete(doomed)
        try context.save()
        try helpers.flush(context)
        #expect(try journalCount(url) == 0)

        // Writing into it again makes the folder.
        try insertNotes(1, titled: "after", into: context)
        try context.save()
        try helpers.flush(context)
        #expect(try journalCount(url) == 0)
        #expect(try helpers.markers(context).values.contains { $0.values["title"] as? String == "after 0" })
    }

    @Test func theSynchronousOptionWritesBeforeSaveReturns() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try helpers.open(url, options: [StoreOption.externalRecordExtension: "note",
                                                      StoreOption.externalRecordsWrittenSynchronously: true])
        let note = try context.insertNewObject(forEntityName: "Note")
        note.setValue("at once", forKey: "title")
        try context.save()
        #expect(try journalCount(url) == 0)
        #expect(try helpers.markers(context)[note.objectID.primaryKey ?? 0]?.values["title"] as? String == "at once")
    }

    @Test func removingTheStoreFinishesItsMarkers() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try helpers.open(url)
        try insertNotes(100, into: context)
        try context.save()
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first)
        let configuration = try #require(store.externalRecordsConfiguration)
        let notes = configuration.recordsRoot(storeIdentifier: store.identifier).appendingPathComponent("Note")
        coordinator.remove(store)
        #expect(try journalCount(url) == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: notes.path).filter { $0.hasSuffix(".note") }.count == 100)
    }

    @Test func twoCoordinatorsInterleavingUpdatesAndDeletesEndWithExactMarkers() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let first = try helpers.open(url)
        let second = try helpers.open(url)
        try insertNotes(200, into: first)
        try first.save()
        // Without flushing: each coordinator's writer runs while the other saves.
        for round in 0..<20 {
            for (index, context) in [first, second].enumerated() {
                context.reset()
                let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
                for note in notes.shuffled().prefix(15) { note.setValue("round \(round) by \(index)", forKey: "title") }
                for note in notes.shuffled().prefix(3) { context.delete(note) }
                try context.insertNewObject(forEntityName: "Note").setValue("new \(round) by \(index)", forKey: "title")
                try context.save()
            }
        }
        try helpers.flush(first)
        try helpers.flush(second)
        #expect(try journalCount(url) == 0)
        try expectExactMarkers(first)
    }

    @Test func twoProcessesSavingOneStoreEndWithExactMarkers() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("stress.sqlite")
        // Create the store first, so the two processes do not race to make it.
        _ = try helpers.open(url, model: helpers.stressModel())
        let program = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("limelight-stress")
        let children = try (0..<2).map { _ in
            let child = Process()
            child.executableURL = program
            child.arguments = [url.path, "150"]
            try child.run()
            return child
        }
        for child in children {
            child.waitUntilExit()
            #expect(child.terminationStatus == 0)
        }
        #expect(try journalCount(url) == 0)
        let context = try helpers.open(url, model: helpers.stressModel())
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")) > 0)
        try expectExactMarkers(context)
    }

    @Test func anUnusableRecordsFolderDuringWritingIsFinishedLater() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let opened = try helpers.open(url)
        let coordinator = try #require(opened.persistentStoreCoordinator)
        let store = try #require(opened.persistentStoreCoordinator?.persistentStores.first)
        let notes = try #require(store.externalRecordsConfiguration).recordsRoot(storeIdentifier: store.identifier).appendingPathComponent("Note")
        try opened.insertNewObject(forEntityName: "Note").setValue("before", forKey: "title")
        try opened.save()
        try helpers.flush(opened)

        // Permission bits do not stop root, so the entity folder becomes a plain file: every
        // marker write in it fails, as it does in a read-only or full folder.
        let aside = folder.file("Note-aside")
        try FileManager.default.moveItem(at: notes, to: aside)
        try Data().write(to: notes)
        try insertNotes(50, titled: "while blocked", into: opened)
        try opened.save()   // the save commits whatever the folder does
        #expect(throws: PersistenceError.self) { try helpers.flush(opened) }
        #expect(try journalCount(url) == 50)

        // Restored: the next pass finishes the work.
        try FileManager.default.removeItem(at: notes)
        try FileManager.default.moveItem(at: aside, to: notes)
        try helpers.flush(opened)
        #expect(try journalCount(url) == 0)
        try expectExactMarkers(opened)

        // Blocked again and the store is removed (its last pass fails): the next open finishes it.
        try FileManager.default.moveItem(at: notes, to: aside)
        try Data().write(to: notes)
        let more = try opened.insertNewObject(forEntityName: "Note")
        more.setValue("after", forKey: "title")
        try opened.save()
        coordinator.remove(store)
        #expect(try journalCount(url) > 0)
        try FileManager.default.removeItem(at: notes)
        try FileManager.default.moveItem(at: aside, to: notes)
        let reopened = try helpers.open(url)
        #expect(try journalCount(url) == 0)
        try expectExactMarkers(reopened)
    }

    /// A store deleted with its folder while open (a temporary folder removed at the end of a
    /// run): its last passes make neither its records folder nor the deleted folder again.
    @Test func aStoreDeletedWithItsFolderLeavesNothingBehind() throws {
        let folder = try TemporaryFolder()
        let context = try helpers.open(folder.file("notes.sqlite"))
        try insertNotes(3, into: context)
        try context.save()
        try helpers.flush(context)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first)
        try FileManager.default.removeItem(at: folder.url)
        try coordinator.flushExternalRecords()
        coordinator.remove(store)
        #expect(!FileManager.default.fileExists(atPath: folder.url.path))
    }
}

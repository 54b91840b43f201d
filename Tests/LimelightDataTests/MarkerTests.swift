import Foundation
import Testing
@testable import LimelightData

/// Marker files: one per indexed object, kept in step with saves, crash-safe, decodable.
@Suite(.serialized) struct MarkerTests {
    static func model() -> ManagedObjectModel {
        let title = AttributeDescription(name: "title", type: .string)
        title.isIndexedBySpotlight = true
        title.isStoredInExternalRecord = true
        let body = AttributeDescription(name: "body", type: .string)
        body.isIndexedBySpotlight = true
        let note = EntityDescription(name: "Note", properties: [title, body, AttributeDescription(name: "count", type: .integer64),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true, deleteRule: .cascade)])
        let tag = EntityDescription(name: "Tag", properties: [AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true)])
        return ManagedObjectModel(entities: [note, tag])
    }

    func open(_ url: URL, model: ManagedObjectModel? = nil, options: [String: any Sendable] = [StoreOption.externalRecordExtension: "note"]) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model ?? Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Waits for the background marker writer: markers are written after `save()` returns.
    func flush(_ context: ManagedObjectContext) throws {
        try #require(context.persistentStoreCoordinator).flushExternalRecords()
    }

    /// Every marker under the store's records root, by primary key.
    func markers(_ context: ManagedObjectContext) throws -> [Int64: MarkerContent] {
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        let configuration = try #require(store.externalRecordsConfiguration)
        let folder = configuration.recordsRoot(storeIdentifier: store.identifier).appendingPathComponent("Note")
        var result: [Int64: MarkerContent] = [:]
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where file.hasSuffix(".note") {
            let path = folder.appendingPathComponent(file).path
            result[Int64(file.dropLast(5)) ?? -1] = try MarkerContent.decode(try Data(contentsOf: URL(fileURLWithPath: path)), path: path)
        }
        return result
    }

    init() { TestStateHome.prepare() }

    @Test func insertUpdateDeleteAndRollbackKeepMarkersInStep() throws {
        let folder = try TemporaryFolder()
        let context = try open(folder.file("notes.sqlite"))
        let note = try context.insertNewObject(forEntityName: "Note")
        note.setValue("Salsa", forKey: "title")
        let tag = try context.insertNewObject(forEntityName: "Tag")
        tag.setValue("mexican", forKey: "name")
        note.mutableSetValue(forKey: "tags").insert(tag)
        try context.save()
        try flush(context)
        var files = try markers(context)
        #expect(files.count == 1)
        let pk = try #require(note.objectID.primaryKey)
        #expect(files[pk]?.values["title"] as? String == "Salsa")
        #expect(files[pk]?.objectURI == note.objectID.uriRepresentation().absoluteString)

        note.setValue("Pico", forKey: "title")
        try context.save()
        try flush(context)
        files = try markers(context)
        #expect(files[pk]?.values["title"] as? String == "Pico")

        note.setValue("Rolled back", forKey: "title")
        context.rollback()
        try flush(context)
        #expect(try markers(context)[pk]?.values["title"] as? String == "Pico")

        context.delete(note)
        try context.save()
        try flush(context)
        #expect(try markers(context).isEmpty)
    }

    @Test func decodingGivesTheFiveElementsAndTheLiveObject() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try open(url)
        let note = try context.insertNewObject(forEntityName: "Note")
        note.setValue("Salsa", forKey: "title")
        try context.save()
        try flush(context)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        let marker = try #require(store.externalRecordsConfiguration).markerURL(storeIdentifier: store.identifier, entityName: "Note", primaryKey: note.objectID.primaryKey ?? 0)
        let elements = try ExternalRecordPath.decode(marker.path)
        #expect(elements.entityName == "Note")
        #expect(elements.storeIdentifier == store.identifier)
        #expect(elements.storeURL.path == url.standardizedFileURL.path)
        #expect(elements.objectURI == note.objectID.uriRepresentation())
        #expect(try PersistentStoreCoordinator.elementsDerived(fromExternalRecordAt: marker) == elements)
        let reader = try ExternalRecordReader(markerPath: marker.path)
        #expect(try reader.object().value(forKey: "title") as? String == "Salsa")
        let attributes = try FileManager.default.attributesOfItem(atPath: marker.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func anUnwritableRecordsFolderKeepsTheWorkJournaledUntilTheNextOpen() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let records = folder.file("records")
        let options: [String: any Sendable] = [StoreOption.externalRecordExtension: "note", StoreOption.externalRecordsDirectory: records.path]
        var context: ManagedObjectContext? = try open(url, options: options)
        // A plain file where the records folder should be: every marker write fails.
        try FileManager.default.removeItem(at: records)
        try Data().write(to: records)
        let note = try #require(context).insertNewObject(forEntityName: "Note")
        note.setValue("kept", forKey: "title")
        try #require(context).save()
        #expect(!note.objectID.isTemporaryID)
        #expect(throws: PersistenceError.self) { try flush(#require(context)) }
        context = nil
        try FileManager.default.removeItem(at: records)
        let reopened = try open(url, options: options)
        let files = try markers(reopened)
        #expect(files.count == 1)
        #expect(files.first?.value.values["title"] as? String == "kept")
    }

    @Test func rebuildRecreatesEveryMarkerAndIsIdempotent() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        do {
            let plain = try open(url, options: [:])
            for number in 0..<20 {
                let note = try plain.insertNewObject(forEntityName: "Note")
                note.setValue("note \(number)", forKey: "title")
            }
            try plain.save()
        }
        let context = try open(url)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        #expect(try store.rebuildExternalRecords() == MarkerRebuildReport(created: 20, rewritten: 0, removed: 0, unchanged: 0))
        #expect(try store.rebuildExternalRecords() == MarkerRebuildReport(created: 0, rewritten: 0, removed: 0, unchanged: 20))
        #expect(try markers(context).count == 20)
    }

    @Test func killedWritersNeverLeaveMarkersAndStoreApart() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("stress.sqlite")
        let program = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("limelight-stress")
        var sawRows = false
        var killedWithWorkPending = 0
        for round in 0..<50 {
            let child = Process()
            child.executableURL = program
            child.arguments = [url.path]
            child.standardError = FileHandle.nullDevice
            try child.run()
            usleep(UInt32.random(in: 30_000...150_000))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            // Work the killed process had journaled but not carried out: it died before or
            // during a marker pass.
            if FileManager.default.fileExists(atPath: url.path) {
                let db = try SQLiteConnection(path: url.path, readOnly: true)
                if (try? db.scalarInt("SELECT count(*) FROM \(MarkerJournal.table)")).flatMap({ $0 }) ?? 0 > 0 { killedWithWorkPending += 1 }
                db.close()
            }
            // Opening finishes what the killed writer left in the journal.
            let context = try open(url, model: stressModel())
            let rows = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            let files = try markers(context)
            sawRows = sawRows || !rows.isEmpty
            let noteFolder = try #require(context.persistentStoreCoordinator?.persistentStores.first.flatMap { store in
                store.externalRecordsConfiguration?.recordsRoot(storeIdentifier: store.identifier).appendingPathComponent("Note").path
            })
            let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: noteFolder)) ?? []).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty, "round \(round): temporary files left: \(leftovers.prefix(3))")
            #expect(Set(files.keys) == Set(rows.compactMap(\.objectID.primaryKey)), "round \(round)")
            for row in rows {
                let content = files[row.objectID.primaryKey ?? 0]
                #expect(content?.values["title"] as? String == row.value(forKey: "title") as? String, "round \(round)")
            }
        }
        #expect(sawRows, "the writer never got a save in before being killed")
        #expect(killedWithWorkPending > 0, "no kill landed while marker work was pending")
    }

    /// The stress program's model: the same Note entity without tags.
    func stressModel() -> ManagedObjectModel {
        let title = AttributeDescription(name: "title", type: .string)
        title.isIndexedBySpotlight = true
        title.isStoredInExternalRecord = true
        let body = AttributeDescription(name: "body", type: .string)
        body.isIndexedBySpotlight = true
        return ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: [title, body, AttributeDescription(name: "count", type: .integer64)])])
    }
}

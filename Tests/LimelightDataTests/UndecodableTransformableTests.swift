import Foundation
import Testing
@testable import LimelightData

/// A transformable value whose bytes its transformer cannot decode (written by another program,
/// another version of the app, or damaged) reads as nil, as Core Data's transformer returns nil:
/// the rest of the fetch succeeds, a warning names the entity, the object and the attribute, and
/// a later save of the object with other changes leaves the bytes in the file.
@Suite struct UndecodableTransformableTests {
    /// Notes with tags kept as JSON; `pinned` is the next version's new attribute.
    static func model(pinned: Bool = false) -> ManagedObjectModel {
        ValueTransformerRegistry.shared.registerCodable([String].self, forName: "UndecodableTags")
        let tags = AttributeDescription(name: "tags", type: .transformable)
        tags.valueTransformerName = "UndecodableTags"
        let note = EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "rank", type: .integer64),
            tags,
        ] + (pinned ? [AttributeDescription(name: "pinned", type: .boolean)] : []))
        return ManagedObjectModel(entities: [note])
    }

    /// A store of three notes (ranked 1 to 3, tagged), the second's tags then
    /// overwritten by `sqlite3` with bytes that are no JSON.
    static func damagedStore(at url: URL) throws {
        do {
            let context = try TestStack.context(model: model(), at: url)
            for rank in 1...3 {
                let note = try context.insertNewObject(forEntityName: "Note")
                note.setValue("note \(rank)", forKey: "title")
                note.setValue(Int64(rank), forKey: "rank")
                note.setValue(["tag \(rank)"], forKey: "tags")
            }
            try context.save()
        }
        try sqliteEdit(url, "UPDATE ZNOTE SET ZTAGS = X'DEADBEEF' WHERE ZRANK = 2")
    }

    /// A context on the store at `url`, and the warnings its store gives.
    static func open(_ url: URL) throws -> (ManagedObjectContext, Warnings) {
        let context = try TestStack.context(model: model(), at: url)
        let warnings = Warnings()
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        store.warningObserver = { warnings.append($0) }
        return (context, warnings)
    }

    final class Warnings: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func append(_ warning: String) { lock.withLock { list.append(warning) } }
        var all: [String] { lock.withLock { list } }
    }

    static func byRank(_ notes: [ManagedObject]) -> [Int64: ManagedObject] {
        Dictionary(uniqueKeysWithValues: notes.map { ($0.value(forKey: "rank") as? Int64 ?? 0, $0) })
    }

    @Test func theRestOfTheFetchSucceedsAndTheValueReadsNilWithAWarning() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.damagedStore(at: url)
        let (context, warnings) = try Self.open(url)
        let notes = Self.byRank(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")))
        #expect(notes.count == 3)
        #expect(notes[1]?.value(forKey: "tags") as? [String] == ["tag 1"])
        #expect(notes[2]?.value(forKey: "tags") == nil)
        #expect(notes[2]?.value(forKey: "title") as? String == "note 2")
        #expect(notes[3]?.value(forKey: "tags") as? [String] == ["tag 3"])
        let warning = try #require(warnings.all.first)
        let uri = try #require(notes[2]).objectID.uriString
        for part in [url.path, "entity Note", "object \(uri)", "attribute tags", "column ZTAGS", "X'DEADBEEF'", "UndecodableTags", "reads as nil"] {
            #expect(warning.contains(part), "\(part) not in: \(warning)")
        }
    }

    @Test func aSaveWithOtherChangesLeavesTheBytesInTheFile() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.damagedStore(at: url)
        let (context, _) = try Self.open(url)
        let note = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: try QueryPredicate(format: "rank == 2"))).first)
        note.setValue("renamed", forKey: "title")
        note.setValue(Int64(20), forKey: "rank")
        try context.save()
        #expect(try sqliteQuery(url, "SELECT hex(ZTAGS) FROM ZNOTE WHERE ZRANK = 20") == ["DEADBEEF"])
        #expect(try sqliteQuery(url, "SELECT ZTITLE FROM ZNOTE WHERE ZRANK = 20") == ["renamed"])

        // Read again from the file, the value is as unreadable as before; given a value, it is written.
        let (again, _) = try Self.open(url)
        let reread = try #require(try again.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: try QueryPredicate(format: "rank == 20"))).first)
        #expect(reread.value(forKey: "tags") == nil)
        reread.setValue(["mended"], forKey: "tags")
        try again.save()
        #expect(try sqliteQuery(url, "SELECT ZTAGS FROM ZNOTE WHERE ZRANK = 20") == [#"["mended"]"#])
    }

    @Test func aDictionaryFetchReadsNilWithAWarningNamingTheEntity() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.damagedStore(at: url)
        let (context, warnings) = try Self.open(url)
        let request = FetchRequest<ManagedObject>(entityName: "Note")
        request.resultType = .dictionary
        request.propertiesToFetch = ["rank", "tags"]
        let rows = try context.fetchDictionaries(request)
        #expect(rows.count == 3)
        let damaged = try #require(rows.first { $0["rank"] as? Int64 == 2 })
        #expect(damaged["tags"] == nil)
        #expect(rows.first { $0["rank"] as? Int64 == 3 }?["tags"] as? [String] == ["tag 3"])
        #expect(warnings.all.contains { $0.contains("entity Note") && $0.contains("attribute tags") })
    }

    /// A migration copies values into the store that takes this one's place: a nil there would
    /// lose the bytes for good, so it stops, naming them, and the store stays as it was.
    @Test func aMigrationRefusesTheValueInsteadOfCopyingNil() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.damagedStore(at: url)
        let manager = try MigrationManager(sourceModel: Self.model(), destinationModel: Self.model(pinned: true))
        do {
            try manager.migrateStore(at: url, with: nil)
            Issue.record("the migration copied an unreadable value")
        } catch {
            let message = "\(error)"
            for part in ["ZTAGS", "X'DEADBEEF'"] { #expect(message.contains(part), "\(part) not in: \(message)") }
        }
        #expect(try sqliteQuery(url, "SELECT hex(ZTAGS) FROM ZNOTE WHERE ZRANK = 2") == ["DEADBEEF"])
        #expect(try sqliteQuery(url, "SELECT count(*) FROM pragma_table_info('ZNOTE') WHERE name = 'ZPINNED'") == ["0"])
    }
}

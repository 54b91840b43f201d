import Foundation
import Testing
@testable import LimelightData

/// Transformable attributes without a registered transformer hold keyed archives, as Core Data
/// keeps them: values written by Core Data read as Swift values, and values written here read
/// back (and would read in Core Data) the same way.
@Suite struct KeyedArchiveTransformerTests {
    static func model() -> ManagedObjectModel {
        let tags = AttributeDescription(name: "tags", type: .transformable)
        let settings = AttributeDescription(name: "settings", type: .transformable)
        settings.valueTransformerName = "NSSecureUnarchiveFromData"
        let entity = EntityDescription(name: "Note", properties: [AttributeDescription(name: "title", type: .string), tags, settings])
        return ManagedObjectModel(entities: [entity])
    }

    /// A store at `url` holding one note, whose column the test then rewrites as Core Data would.
    static func saveOneNote(at url: URL) throws {
        let context = try PhotoModel.stack(at: url, model: model())
        try context.insertNewObject(forEntityName: "Note").setValue("x", forKey: "title")
        try context.save()
    }

    static func note(_ url: URL) throws -> (ManagedObjectContext, ManagedObject) {
        let context = try PhotoModel.stack(at: url, model: model())
        return (context, try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first))
    }

    @Test func valuesRoundTripAsKeyedArchives() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let when = Date(timeIntervalSinceReferenceDate: 700_000_000)
        do {
            let context = try PhotoModel.stack(at: url, model: Self.model())
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue(["salt", "lime", "Zoë"], forKey: "tags")
            note.setValue(["size": 3, "when": when, "nested": ["a": [1, 2]]] as [String: Any], forKey: "settings")
            try context.save()
        }
        // The column holds a keyed archive, as Core Data writes one.
        let column = try sqliteQuery(url, "SELECT hex(substr(ZTAGS, 1, 8)) FROM ZNOTE")
        #expect(column == [Data("bplist00".utf8).map { String(format: "%02X", $0) }.joined()])
        let (context, note) = try Self.note(url)
        _ = context
        #expect(note.value(forKey: "tags") as? [String] == ["salt", "lime", "Zoë"])
        let settings = try #require(note.value(forKey: "settings") as? [String: Any])
        #expect(settings["size"] as? Int == 3)
        #expect(settings["when"] as? Date == when)
        #expect((settings["nested"] as? [String: Any])?["a"] as? [Int] == [1, 2])
    }

    @Test func anArchiveWrittenByFoundationReads() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.saveOneNote(at: url)
        // What Core Data's default transformer stores: NSKeyedArchiver's bytes for an NSArray.
        let archive = try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: [NSString(string: "from"), NSString(string: "Core Data")]),
                                                       requiringSecureCoding: true)
        try ExternalBinaryDataTests.sqliteWrite(url, "UPDATE ZNOTE SET ZTAGS = X'\(archive.map { String(format: "%02X", $0) }.joined())'")
        let (context, note) = try Self.note(url)
        _ = context
        #expect(note.value(forKey: "tags") as? [String] == ["from", "Core Data"])
    }

    @Test func bytesThatAreNoArchiveStayBytesAndUnarchivableValuesFailTheSave() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.saveOneNote(at: url)
        try ExternalBinaryDataTests.sqliteWrite(url, "UPDATE ZNOTE SET ZTAGS = X'00010203'")
        let (context, note) = try Self.note(url)
        #expect(note.value(forKey: "tags") as? Data == Data([0, 1, 2, 3]))

        struct Opaque {}
        note.setValue(Opaque(), forKey: "tags")
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try sqliteQuery(url, "SELECT hex(ZTAGS) FROM ZNOTE") == ["00010203"])
    }
}

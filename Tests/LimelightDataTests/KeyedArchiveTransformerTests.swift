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

    /// Archives whose arrays hold themselves, nest a thousand deep, or share one array twice per
    /// level 60 deep overflowed the stack or never returned when a store's column held them. They
    /// read as the bytes they are, as any value that is no archive of plain values does.
    @Test func archivesThatGoRoundNestWithoutEndOrShareIntoABombStayBytes() throws {
        let arrayClass: [String: Any] = ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]]
        func archive(_ objects: [Any]) throws -> Data {
            try PropertyListWriter.data(["$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": PropertyListUID(1)],
                                         "$objects": objects] as [String: Any], format: .binary)
        }
        func array(_ elements: [Int], classAt index: Int) -> [String: Any] {
            ["NS.objects": elements.map { PropertyListUID(UInt64($0)) }, "$class": PropertyListUID(UInt64(index))]
        }
        let cycle = try archive(["$null", array([1], classAt: 2), arrayClass])
        let deep = try archive(["$null"] + (1...1_000).map { array([$0 + 1], classAt: 1_002) } + ["leaf", arrayClass])
        let bomb = try archive(["$null"] + (1...60).map { array([$0 + 1, $0 + 1], classAt: 62) } + ["leaf", arrayClass])
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try Self.saveOneNote(at: url)
        for bytes in [cycle, deep, bomb] {
            try ExternalBinaryDataTests.sqliteWrite(url, "UPDATE ZNOTE SET ZTAGS = X'\(bytes.map { String(format: "%02X", $0) }.joined())'")
            let (context, note) = try Self.note(url)
            _ = context
            #expect(note.value(forKey: "tags") as? Data == bytes)
        }
        // The fuzzer's find: a date whose class entry misspells `$classname`, inside a
        // dictionary; Foundation's unarchiver then read memory it did not own. And a dictionary
        // with more values than keys.
        let misnamed = try archive(["$null", ["NS.keys": [PropertyListUID(2)], "NS.objects": [PropertyListUID(3)], "$class": PropertyListUID(5)],
                                    "when", ["NS.time": 0.0, "$class": PropertyListUID(4)], ["$cla;sname": "NSDate", "$classes": ["NSDate", "NSObject"]],
                                    ["$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]]])
        let uneven = try archive(["$null", ["NS.keys": [PropertyListUID(2)], "NS.objects": [PropertyListUID(2), PropertyListUID(2)], "$class": PropertyListUID(3)],
                                  "key", ["$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]]])
        // And the fuzzer's next: a URL whose text is empty, which trapped when bridged.
        let emptyURL = try archive(["$null", ["NS.relative": PropertyListUID(2), "NS.base": PropertyListUID(0), "$class": PropertyListUID(3)], "",
                                    ["$classname": "NSURL", "$classes": ["NSURL", "NSObject"]]])
        for bytes in [misnamed, uneven, emptyURL] {
            #expect(try KeyedArchiveTransformer.transformer.decode(bytes) as? Data == bytes)
        }
        // Shared, but not into a bomb: read.
        let shared = try archive(["$null", array([2, 2], classAt: 3), "twice", arrayClass])
        #expect(try KeyedArchiveTransformer.transformer.decode(shared) as? [String] == ["twice", "twice"])
        let link = try #require(URL(string: "https://example.com/a?b=c"))
        let linkAndUUID = try KeyedArchiveTransformer.transformer.decode(KeyedArchiveTransformer.transformer.encode([link, UUID()]))
        #expect((linkAndUUID as? [Any])?.first as? URL == link, "\(type(of: linkAndUUID)) \(linkAndUUID)")
    }

    /// The fuzzer's find that Foundation's unarchiver crashed on (reading memory it did not own,
    /// in a cast after unarchiving): a dictionary of a date, a string and a number whose damaged
    /// offset table points its three keys' entries at one object. Read by the project's own
    /// archive reader, it is the one-key dictionary those tables describe.
    @Test func anArchiveFoundationCrashedOnReadsAsItsValues() throws {
        let bytes = try #require(Data(base64Encoded: """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoMIBD05TS2V5ZWRBcmNoaXZlctEICVRyb290\
            gAGqCwwZGhscISgpKlUkbnVsbNMNDg8QFBVXTlMua2V5c1YkY2xhc3NaTlMub2JqZWN0c6MREhOAAoADgASACaMWFxiABYAHgAhUd2hlblRu\
            YW1lU2FnZdIdHh8gViRjbGFzc1dOUy50aW1lgAYjAAAAAAAAAADSIiMkJVokY2xhc3NuYW1lWCRjbGFzc2VzVk5TRGF0ZaImJ1ZOU0RhdGVY\
            TlNPYmplY3RTQW5uECrSKywtLlokY2xhc3NuYW1lWCRjbGFzc2VzXE5TRGljdGlvbmFyeaIvMFxOU0RpY3Rpb25hcnlYTlNPYmplY3QACAAR\
            ABoAJAApADIANwBJAEwAUQBTAF4AZABrAHMAegCFAIsAiwCNAI8AkQCVAJcAmQCbAKAAoACpAK4AtQC9AL8AyADNANgA4QDoAOsA8gD7AP8B\
            AQEGAREBGgEnASoBNwAAAAAAAAIBAAAAAAAAADEAAAAAAAAAAAAAAAAAAAFA
            """))
        let value = try #require(try KeyedArchiveTransformer.transformer.decode(bytes) as? [String: Any], "read as bytes")
        #expect(value.count == 1, "\(value)")
        #expect(value["name"] as? Int == 42, "\(value)")
    }
}

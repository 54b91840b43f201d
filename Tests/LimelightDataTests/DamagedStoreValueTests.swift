import Foundation
import Testing
@testable import LimelightData

/// Rewrites a store with the `sqlite3` program, as another tool or a person at its shell would.
func sqliteEdit(_ url: URL, _ sql: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [url.path, sql]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "sqlite3 \(sql): \(message)")
}

/// The `StoreDamage` an operation throws, or `nil` (recorded as an issue) when it throws none.
func expectDamage(_ operation: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> StoreDamage? {
    do {
        try operation()
        Issue.record("no error was thrown", sourceLocation: sourceLocation)
    } catch PersistenceError.damagedStore(let damage) {
        return damage
    } catch {
        Issue.record("another error than a damaged store: \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// SQLite lets any column hold any storage class. A value that its attribute cannot take without
/// changing it (text in an integer column, a number beyond an Integer 16, bytes that are no UUID)
/// is refused when read, naming the store, table, entity, row and column; the file stays as it
/// was. Values that convert without loss (an integer written as text) read as their attribute's.
@Suite struct DamagedStoreValueTests {
    static func model() -> ManagedObjectModel {
        ValueTransformerRegistry.shared.registerCodable([String].self, forName: "DamagedStoreTags")
        let tags = AttributeDescription(name: "tags", type: .transformable)
        tags.valueTransformerName = "DamagedStoreTags"
        let reading = EntityDescription(name: "Reading", properties: [
            AttributeDescription(name: "count", type: .integer64),
            AttributeDescription(name: "small", type: .integer16),
            AttributeDescription(name: "medium", type: .integer32),
            AttributeDescription(name: "flag", type: .boolean),
            AttributeDescription(name: "label", type: .string),
            AttributeDescription(name: "taken", type: .date),
            AttributeDescription(name: "code", type: .uuid),
            AttributeDescription(name: "amount", type: .decimal),
            AttributeDescription(name: "level", type: .double),
            AttributeDescription(name: "extra", type: .transformable),
            tags,
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "unnamed"),
        ])
        return ManagedObjectModel(entities: [reading])
    }

    /// A store at `url` with one reading (Z_PK 1) of ordinary values, then `sql` run on it by `sqlite3`.
    static func store(at url: URL, damagedBy sql: String) throws {
        do {
            let context = try TestStack.context(model: model(), at: url)
            let reading = try context.insertNewObject(forEntityName: "Reading")
            reading.setValue(Int64(7), forKey: "count")
            reading.setValue("fine", forKey: "label")
            reading.setValue(UUID(), forKey: "code")
            try context.save()
        }
        try sqliteEdit(url, sql)
    }

    static func readings(_ url: URL, options: [String: any Sendable] = [:]) throws -> [ManagedObject] {
        let context = try TestStack.context(model: model(), at: url, options: options)
        return try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading"))
    }

    struct Damage: Sendable, CustomTestStringConvertible {
        var column: String
        var literal: String
        var words: String
        var testDescription: String { "\(column) = \(literal)" }
    }

    static let refused: [Damage] = [
        Damage(column: "ZCOUNT", literal: "'seven'", words: "TEXT 'seven' is not an Integer 64"),
        Damage(column: "ZCOUNT", literal: "X'0102'", words: "BLOB of 2 bytes"),
        Damage(column: "ZCOUNT", literal: "2.5", words: "REAL 2.5"),
        Damage(column: "ZSMALL", literal: "1e20", words: "is not an Integer 16"),
        Damage(column: "ZSMALL", literal: "70000", words: "INTEGER 70000 is not an Integer 16"),
        Damage(column: "ZMEDIUM", literal: "5000000000", words: "INTEGER 5000000000 is not an Integer 32"),
        Damage(column: "ZFLAG", literal: "'yes'", words: "TEXT 'yes' is not a Boolean"),
        Damage(column: "ZLABEL", literal: "X'FFFE41'", words: "not UTF-8"),
        Damage(column: "ZTAKEN", literal: "'last Tuesday'", words: "TEXT 'last Tuesday' is not a Date"),
        Damage(column: "ZCODE", literal: "X'0102030405'", words: "BLOB of 5 bytes (X'0102030405') is not a UUID"),
        Damage(column: "ZCODE", literal: "'not-a-uuid'", words: "is not a UUID"),
        Damage(column: "ZAMOUNT", literal: "'lots'", words: "TEXT 'lots' is not a Decimal"),
        Damage(column: "ZLEVEL", literal: "X'00'", words: "is not a Double"),
        // Bytes the transformer cannot decode read as nil instead, as in Core Data (UndecodableTransformableTests);
        // anything but bytes is refused, as Core Data's transformer refuses what is not NSData.
        Damage(column: "ZTAGS", literal: "'[\"a\"]'", words: "is not a transformable value"),
        Damage(column: "ZEXTRA", literal: "'text'", words: "is not a transformable value"),
    ]

    @Test(arguments: refused)
    func aValueItsAttributeCannotTakeIsRefusedNamingItsPlace(_ case: Damage) throws {
        let folder = try TemporaryFolder()
        let url = folder.file("readings.sqlite")
        try Self.store(at: url, damagedBy: "UPDATE ZREADING SET \(`case`.column) = \(`case`.literal)")
        let before = try Data(contentsOf: url)
        let damage = expectDamage { _ = try Self.readings(url) }
        #expect(damage?.path == url.path)
        #expect(damage?.table == "ZREADING")
        #expect(damage?.entity == "Reading")
        #expect(damage?.primaryKey == 1)
        #expect(damage?.column == `case`.column)
        #expect(damage?.reason.contains(`case`.words) == true, "\(damage?.reason ?? "-")")
        let message = "\(PersistenceError.damagedStore(try #require(damage)))"
        for part in [url.path, "ZREADING", "Reading", "Z_PK 1", `case`.column] { #expect(message.contains(part), "\(message)") }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aDictionaryFetchRefusesADamagedValueToo() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("readings.sqlite")
        try Self.store(at: url, damagedBy: "UPDATE ZREADING SET ZSMALL = 'many'")
        let context = try TestStack.context(model: Self.model(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Reading")
        request.resultType = .dictionary
        request.propertiesToFetch = ["small"]
        let damage = expectDamage { _ = try context.fetchDictionaries(request) }
        #expect(damage?.column == "ZSMALL")
        #expect(damage?.entity == "Reading")
    }

    @Test func valuesThatConvertWithoutLossReadAsTheirAttributes() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("readings.sqlite")
        try Self.store(at: url, damagedBy: """
            UPDATE ZREADING SET ZCOUNT = '42', ZSMALL = 12.0, ZMEDIUM = '-5', ZFLAG = 2, ZLABEL = 99, ZTAKEN = '100.5', \
            ZCODE = 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F', ZAMOUNT = '3.25', ZLEVEL = '1.5'
            """)
        let context = try TestStack.context(model: Self.model(), at: url)
        let reading = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).first)
        #expect(reading.value(forKey: "count") as? Int64 == 42)
        #expect(reading.value(forKey: "small") as? Int16 == 12)
        #expect(reading.value(forKey: "medium") as? Int32 == -5)
        // Any number but 0 is true, as Core Data reads a Boolean column.
        #expect(reading.value(forKey: "flag") as? Bool == true)
        #expect(reading.value(forKey: "label") as? String == "99")
        #expect(reading.value(forKey: "taken") as? Date == Date(timeIntervalSinceReferenceDate: 100.5))
        #expect(reading.value(forKey: "code") as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(reading.value(forKey: "amount") as? Decimal == Decimal(string: "3.25"))
        #expect(reading.value(forKey: "level") as? Double == 1.5)
    }

    /// Bytes in a transformable column that are no keyed archive are handed over as they are by
    /// Core Data's default transformer, and a save of another attribute keeps them.
    @Test func bytesThatAreNoArchiveReadAsBytesAndAreKept() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("readings.sqlite")
        try Self.store(at: url, damagedBy: "UPDATE ZREADING SET ZEXTRA = X'DEADBEEF'")
        let context = try TestStack.context(model: Self.model(), at: url)
        let reading = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).first)
        #expect(reading.value(forKey: "extra") as? Data == Data([0xDE, 0xAD, 0xBE, 0xEF]))
        reading.setValue("changed", forKey: "label")
        try context.save()
        #expect(try sqliteQuery(url, "SELECT hex(ZEXTRA), ZLABEL FROM ZREADING") == ["DEADBEEF|changed"])
    }

    /// Core Data reads NULL in a non-optional attribute as nil and refuses to save the object
    /// while it stays so; other objects save.
    @Test func nullInANonOptionalAttributeReadsAsNilAndIsRefusedBySave() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("readings.sqlite")
        try Self.store(at: url, damagedBy: "UPDATE ZREADING SET ZNAME = NULL")
        let context = try TestStack.context(model: Self.model(), at: url)
        let reading = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).first)
        #expect(reading.value(forKey: "name") == nil)
        reading.setValue("changed", forKey: "label")
        #expect { try context.save() } throws: { error in
            guard let validation = error as? ValidationError else { return false }
            return validation.failures.contains { $0.key == "name" && $0.entityName == "Reading" }
        }
        #expect(context.hasChanges)
        #expect(try sqliteQuery(url, "SELECT ZLABEL FROM ZREADING") == ["fine"])
        reading.setValue("given", forKey: "name")
        try context.save()
        #expect(try sqliteQuery(url, "SELECT ZLABEL, ZNAME FROM ZREADING") == ["changed|given"])
    }
}

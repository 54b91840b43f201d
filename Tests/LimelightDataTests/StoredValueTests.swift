import Foundation
import Testing
@testable import LimelightData

/// Every kind of attribute as a typed property, to check values pass through their stored case
/// both ways, and types without a case of their own through `Any`.
final class EveryKind: ManagedObject {
    @Managed var i64: Int64
    @Managed var i64Optional: Int64?
    @Managed var i32: Int32
    @Managed var i16: Int16?
    @Managed var real: Double
    @Managed var single: Float?
    @Managed var flag: Bool
    @Managed var text: String?
    @Managed var when: Date?
    @Managed var blob: Data?
    @Managed var amount: Decimal?
    @Managed var token: UUID?
    /// An Integer 64 attribute read and written as `Int`: converted, not taken from the case.
    @Managed("i64") var wide: Int
}

/// The stored form of values: one case per common type, `Any` for the rest, and the same answers
/// as before through every public path (key-value, typed properties, undo, saves and fetches).
@Suite struct StoredValueTests {
    @Test func eachCommonTypeHasItsOwnCaseAndComesBackAsItself() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        let id = ManagedObjectID(temporaryFor: EntityDescription(name: "E", properties: []))
        let values: [(Any, String)] = [
            (Int64(7), "int64"), (Int32(7), "int32"), (Int16(7), "int16"), (2.5, "double"), (Float(2.5), "float"),
            (true, "bool"), ("é", "string"), (date, "date"), (Data([1, 2]), "data"), (id, "objectID"),
            (ToManySlot.fault, "toMany"), (Decimal(3), "other"), (7, "other"), (UUID(), "other"),
        ]
        for (value, expected) in values {
            let stored = StoredValue(value)
            #expect(Self.caseName(stored) == expected, "\(type(of: value))")
            #expect(type(of: stored.value!) == type(of: value), "\(type(of: value)) comes back as its own type")
        }
        #expect(StoredValue(nil).isNull)
        // A stored value given back as `Any` is not wrapped a second time.
        #expect(Self.caseName(StoredValue(StoredValue.int64(1) as Any)) == "int64")
    }

    @Test func samenessIsByCaseAndValue() {
        #expect(StoredValue.same(.int64(1), .int64(1)))
        #expect(!StoredValue.same(.int64(1), .int32(1)))
        #expect(!StoredValue.same(.null, .string("")))
        #expect(StoredValue.same(.double(.nan), .double(.nan)), "setting NaN again is no change")
        #expect(StoredValue.same(StoredValue(Decimal(2)), StoredValue(Decimal(2))), "boxed values compare by value")
        #expect(!StoredValue.same(StoredValue(Decimal(2)), StoredValue(Decimal(3))))
        #expect(!StoredValue.same(.toMany(.fault), .toMany(.loaded([]))))
        #expect(StoredValue.same(.toMany(.loaded([])), .toMany(.loaded([]))))
    }

    @Test func typedPropertiesReadAndWriteEveryKindAndSurviveASave() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kinds-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let model = Self.model()
        let token = UUID()
        var id: ManagedObjectID?
        do {
            let context = try Self.context(url, model)
            let object = try #require(try context.insertNewObject(forEntityName: "Kinds") as? EveryKind)
            object.i64 = 1 << 40
            object.i32 = -5
            object.i16 = 12
            object.real = 0.25
            object.single = 1.5
            object.flag = true
            object.text = "tomato"
            object.when = Date(timeIntervalSinceReferenceDate: 100)
            object.blob = Data([9, 8, 7])
            object.amount = Decimal(string: "12.34")
            object.token = token
            #expect(object.i64Optional == nil)
            #expect(object.wide == 1 << 40)
            // Key-value access sees the typed writes in the attribute's own type.
            #expect(object.value(forKey: "i16") as? Int16 == 12)
            #expect(object.value(forKey: "single") as? Float == 1.5)
            try context.save()
            id = object.objectID
        }
        let context = try Self.context(url, model)
        let savedID = try #require(id)
        let object = try #require(try context.existingObject(with: savedID) as? EveryKind)
        #expect(object.i64 == 1 << 40 && object.i32 == -5 && object.i16 == 12)
        #expect(object.real == 0.25 && object.single == 1.5 && object.flag)
        #expect(object.text == "tomato" && object.when == Date(timeIntervalSinceReferenceDate: 100))
        #expect(object.blob == Data([9, 8, 7]) && object.amount == Decimal(string: "12.34") && object.token == token)
        #expect(object.i64Optional == nil)
        object.wide = 3
        #expect(object.i64 == 3)
        object.i64Optional = 4
        object.text = nil
        #expect(object.changedValues().keys.sorted() == ["i64", "i64Optional", "text"])
        #expect(object.changedValues()["text"]! == nil)
    }

    @Test func typedWritesAreUndoneLikeKeyValueWrites() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kinds-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let context = try Self.context(url, Self.model())
        context.undoManager = ContextUndoManager()
        let object = try #require(try context.insertNewObject(forEntityName: "Kinds") as? EveryKind)
        object.text = "first"
        try context.save()
        context.processPendingChanges()
        object.text = "second"
        object.i64 = 9
        context.processPendingChanges()
        context.undo()
        #expect(object.text == "first" && object.i64 == 0)
        #expect(object.changedValues().isEmpty, "the values are the saved ones again")
    }

    @Test func aValueOfTheWrongTypeIsStillRefusedAtSave() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kinds-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let context = try Self.context(url, Self.model())
        let object = try context.insertNewObject(forEntityName: "Kinds")
        object.setValue("not a number", forKey: "i32")
        #expect(throws: (any Error).self) { try context.save() }
        object.setValue(Int(41), forKey: "i32")
        #expect(object.value(forKey: "i32") as? Int32 == 41, "an Int is converted to the attribute's Int32")
        try context.save()
    }

    static func caseName(_ value: StoredValue) -> String {
        switch value {
        case .null: "null"
        case .int64: "int64"
        case .int32: "int32"
        case .int16: "int16"
        case .double: "double"
        case .float: "float"
        case .bool: "bool"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .objectID: "objectID"
        case .toMany: "toMany"
        case .other: "other"
        }
    }

    static func model() -> ManagedObjectModel {
        let attributes: [(String, AttributeType)] = [
            ("i64", .integer64), ("i64Optional", .integer64), ("i32", .integer32), ("i16", .integer16), ("real", .double),
            ("single", .float), ("flag", .boolean), ("text", .string), ("when", .date), ("blob", .binaryData),
            ("amount", .decimal), ("token", .uuid),
        ]
        let entity = EntityDescription(name: "Kinds", properties: attributes.map { AttributeDescription(name: $0.0, type: $0.1) })
        entity.managedObjectClassName = "EveryKind"
        ManagedObjectClassRegistry.shared.register(EveryKind.self, as: "EveryKind")
        return ManagedObjectModel(entities: [entity])
    }

    static func context(_ url: URL, _ model: ManagedObjectModel) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

import Foundation
import Testing
@testable import LimelightData

/// Models built in code: merging, version hashes, every attribute type stored and read back,
/// wrong types and unknown keys refused at save.
@Suite struct ModelAndValueTests {
    @Test func mergingJoinsConfigurationsAndRefusesDuplicateEntities() throws {
        let a = ManagedObjectModel(entities: [EntityDescription(name: "A")])
        a.configurations["Shared"] = ["A"]
        let b = ManagedObjectModel(entities: [EntityDescription(name: "B")])
        b.configurations["Shared"] = ["B"]
        let merged = try ManagedObjectModel.merged([a, b])
        #expect(merged.entities.map(\.name).sorted() == ["A", "B"])
        #expect(merged.configurations["Shared"] == ["A", "B"])
        let clash = ManagedObjectModel(entities: [EntityDescription(name: "A")])
        #expect(throws: ModelError.self) { try ManagedObjectModel.merged([merged, clash]) }
    }

    @Test func versionHashesFollowTheStoredShapeOnly() throws {
        func entity(_ type: AttributeType, optional: Bool = true, className: String? = nil) -> EntityDescription {
            let e = EntityDescription(name: "E", properties: [AttributeDescription(name: "x", type: type, isOptional: optional)])
            e.managedObjectClassName = className
            return e
        }
        #expect(entity(.string).versionHash.count == 32)
        #expect(entity(.string).versionHash == entity(.string, className: "Other").versionHash)
        #expect(entity(.string).versionHash != entity(.integer64).versionHash)
        #expect(entity(.string).versionHash != entity(.string, optional: false).versionHash)
        let modified = entity(.string)
        modified.versionHashModifier = "v2"
        #expect(modified.versionHash != entity(.string).versionHash)
    }

    @Test func everyAttributeTypeStoresAndReadsBack() throws {
        ValueTransformerRegistry.shared.registerCodable([String].self, forName: "StringList")
        let list = AttributeDescription(name: "list", type: .transformable)
        list.valueTransformerName = "StringList"
        let entity = EntityDescription(name: "All", properties: [
            AttributeDescription(name: "i16", type: .integer16), AttributeDescription(name: "i32", type: .integer32),
            AttributeDescription(name: "i64", type: .integer64), AttributeDescription(name: "dec", type: .decimal),
            AttributeDescription(name: "dbl", type: .double), AttributeDescription(name: "flt", type: .float),
            AttributeDescription(name: "str", type: .string), AttributeDescription(name: "bool", type: .boolean),
            AttributeDescription(name: "date", type: .date), AttributeDescription(name: "data", type: .binaryData),
            AttributeDescription(name: "uuid", type: .uuid), AttributeDescription(name: "uri", type: .uri), list,
        ])
        let folder = try TemporaryFolder()
        let url = folder.file("all.sqlite")
        let uuid = UUID()
        let date = Date(timeIntervalSinceReferenceDate: 123_456.5)
        do {
            let context = try PhotoModel.stack(at: url, model: ManagedObjectModel(entities: [entity]))
            let object = try context.insertNewObject(forEntityName: "All")
            let values: [String: Any] = ["i16": 7, "i32": Int32(-8), "i64": Int64.max, "dec": Decimal(string: "12.34") as Any,
                                         "dbl": 2.5, "flt": Float(1.25), "str": "Zoë", "bool": true, "date": date,
                                         "data": Data([0, 1, 255]), "uuid": uuid, "uri": URL(string: "https://example.org/x") as Any,
                                         "list": ["a", "b"]]
            for (key, value) in values { object.setValue(value, forKey: key) }
            try context.save()
        }
        let context = try PhotoModel.stack(at: url, model: ManagedObjectModel(entities: [entity]))
        let object = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "All")).first)
        #expect(object.value(forKey: "i16") as? Int16 == 7)
        #expect(object.value(forKey: "i32") as? Int32 == -8)
        #expect(object.value(forKey: "i64") as? Int64 == Int64.max)
        #expect(object.value(forKey: "dec") as? Decimal == Decimal(string: "12.34"))
        #expect(object.value(forKey: "dbl") as? Double == 2.5)
        #expect(object.value(forKey: "flt") as? Float == 1.25)
        #expect(object.value(forKey: "str") as? String == "Zoë")
        #expect(object.value(forKey: "bool") as? Bool == true)
        #expect(object.value(forKey: "date") as? Date == date)
        #expect(object.value(forKey: "data") as? Data == Data([0, 1, 255]))
        #expect(object.value(forKey: "uuid") as? UUID == uuid)
        #expect(object.value(forKey: "uri") as? URL == URL(string: "https://example.org/x"))
        #expect(object.value(forKey: "list") as? [String] == ["a", "b"])
    }

    @Test func wrongTypesAndUnknownKeysFailTheSaveAndWriteNothing() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("photos.sqlite")
        let context = try PhotoModel.stack(at: url)
        let photo = try context.insertNewObject(forEntityName: "Photo")
        photo.setValue("seven", forKey: "rating")
        photo.setValue("x", forKey: "colour")
        do {
            try context.save()
            Issue.record("the save went through")
        } catch let error as ValidationError {
            #expect(error.failures.contains { $0.key == "rating" && $0.reason.contains("expected Integer 16") })
            #expect(error.failures.contains { $0.key == "colour" && $0.reason.contains("no property 'colour'") })
        }
        #expect(try PhotoModel.stack(at: url).count(for: FetchRequest<ManagedObject>(entityName: "Photo")) == 0)
    }

    /// Entities whose parents go round are refused, and let go: each held the next as a subentity.
    @Test func entitiesInAnInheritanceCycleAreRefusedAndGo() throws {
        weak var goneLoop: EntityDescription?
        weak var goneOther: EntityDescription?
        do {
            let loop = EntityDescription(name: "Loop", properties: [])
            loop.superentityName = "Loop"
            let first = EntityDescription(name: "First", properties: []), second = EntityDescription(name: "Second", properties: [])
            first.superentityName = "Second"
            second.superentityName = "First"
            for entities in [[loop], [first, second]] {
                let model = ManagedObjectModel(entities: entities)
                let error = try #require(throws: ModelError.self) { try model.resolve() }
                #expect(error.reason.contains("inheritance cycle"))
            }
            goneLoop = loop
            goneOther = first
        }
        #expect(goneLoop == nil)
        #expect(goneOther == nil)
    }
}

import Foundation
import Testing
@testable import LimelightData

/// Saves hand new objects their permanent IDs by position: each object must end up with the row
/// holding its own values, across entities, an inheritance tree sharing one table, relationships
/// between new objects, several saves, and IDs obtained before the save.
@Suite struct SaveIdentityTests {
    /// `Item` and its sub-entity `Book` share one table (and one key counter); `Note` has its own
    /// and points at an item.
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "serial", type: .integer64),
            RelationshipDescription(name: "notes", destination: "Note", inverse: "item", toMany: true),
        ])
        let book = EntityDescription(name: "Book", properties: [AttributeDescription(name: "title", type: .string)], parent: "Item")
        let note = EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "serial", type: .integer64),
            RelationshipDescription(name: "item", destination: "Item", inverse: "notes"),
        ])
        return ManagedObjectModel(entities: [item, book, note])
    }

    /// Inserts `count` objects cycling through the three entities; every note points at the
    /// object made just before it. Returns serial → object.
    func insertMix(_ context: ManagedObjectContext, serials: Range<Int64>) throws -> [Int64: ManagedObject] {
        var made: [Int64: ManagedObject] = [:]
        var previous: ManagedObject?
        for serial in serials {
            let name = ["Item", "Book", "Note"][Int(serial % 3)]
            let object = try context.insertNewObject(forEntityName: name)
            object.setValue(serial, forKey: "serial")
            if name == "Book" { object.setValue("book \(serial)", forKey: "title") }
            if name == "Note" { object.setValue(previous, forKey: "item") }
            made[serial] = object
            previous = object
        }
        return made
    }

    /// Reads every object back through a fresh coordinator by its URI and checks its values
    /// and where its note points.
    func expectStored(_ made: [Int64: ManagedObject], at url: URL) throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = coordinator
        for (serial, object) in made {
            #expect(!object.objectID.isTemporaryID)
            let id = try #require(coordinator.managedObjectID(forURIRepresentation: object.objectID.uriRepresentation()))
            let stored = try reader.existingObject(with: id)
            #expect(stored.entity.name == object.entity.name)
            #expect(stored.value(forKey: "serial") as? Int64 == serial)
            if stored.entity.name == "Book" { #expect(stored.value(forKey: "title") as? String == "book \(serial)") }
            if stored.entity.name == "Note" {
                let item = try #require(stored.value(forKey: "item") as? ManagedObject)
                #expect(item.value(forKey: "serial") as? Int64 == serial - 1)
            }
        }
    }

    @Test func newObjectsOfSeveralEntitiesGetTheRowsWithTheirOwnValues() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("mix.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        var made = try insertMix(context, serials: 1..<301)
        try context.save()
        // Items and books share a table: their keys never collide; notes count on their own.
        let treeKeys = made.values.filter { $0.entity.name != "Note" }.compactMap(\.objectID.primaryKey)
        #expect(Set(treeKeys).count == 200)
        #expect(Set(made.values.filter { $0.entity.name == "Note" }.compactMap(\.objectID.primaryKey)) == Set(1...100))
        // A second save continues each counter where the first left it.
        made.merge(try insertMix(context, serials: 301..<451)) { first, _ in first }
        try context.save()
        #expect(Set(made.values.filter { $0.entity.name != "Note" }.compactMap(\.objectID.primaryKey)).count == 300)
        try expectStored(made, at: url)
    }

    @Test func idsObtainedBeforeTheSaveAreTheOnesSaved() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("obtained.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        let made = try insertMix(context, serials: 1..<31)
        let early = Array(made.values.prefix(17))
        try context.obtainPermanentIDs(for: early)
        let obtained = early.map(\.objectID)
        #expect(obtained.allSatisfy { !$0.isTemporaryID })
        try context.save()
        #expect(early.map(\.objectID) == obtained)
        try expectStored(made, at: url)
    }

    @Test func theInMemoryStoreGivesEachObjectItsOwnID() throws {
        let context = try TestStack.context(model: Self.model(), at: nil)
        let made = try insertMix(context, serials: 1..<61)
        try context.save()
        for (serial, object) in made {
            let fetched = context.object(with: object.objectID)
            #expect(fetched === object)
            #expect(fetched.value(forKey: "serial") as? Int64 == serial)
        }
        let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
        #expect(notes.count == 20)
        for note in notes {
            let item = try #require(note.value(forKey: "item") as? ManagedObject)
            #expect(item.value(forKey: "serial") as? Int64 == (note.value(forKey: "serial") as? Int64 ?? 0) - 1)
        }
    }

    @Test func anObjectOutlivingItsContextHasNone() throws {
        var context: ManagedObjectContext? = try TestStack.context(model: Self.model(), at: nil)
        let object = try #require(try context?.insertNewObject(forEntityName: "Item"))
        object.setValue(Int64(7), forKey: "serial")
        try context?.save()
        #expect(object.managedObjectContext === context)
        context = nil
        #expect(object.managedObjectContext == nil)
        // Its values stay readable, and changing them needs no context.
        #expect(object.value(forKey: "serial") as? Int64 == 7)
        object.setValue(Int64(8), forKey: "serial")
        #expect(object.value(forKey: "serial") as? Int64 == 8)
    }
}

import Foundation
import Testing
@testable import LimelightData

/// Core Data's XML store on real files: what a save writes, what reopening reads, files in Core
/// Data's own form, and files that must be refused without losing anything.
struct XMLStoreTests {
    /// A recipe with an attribute of every kind the XML store writes.
    static func pantryModel() -> ManagedObjectModel {
        let steps = RelationshipDescription(name: "steps", destination: "Step", inverse: "recipe", toMany: true)
        steps.isOrdered = true
        let recipe = EntityDescription(name: "Recipe", properties: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "servings", type: .integer16),
            AttributeDescription(name: "calories", type: .integer32),
            AttributeDescription(name: "views", type: .integer64),
            AttributeDescription(name: "rating", type: .double),
            AttributeDescription(name: "weight", type: .float),
            AttributeDescription(name: "price", type: .decimal),
            AttributeDescription(name: "isVegetarian", type: .boolean),
            AttributeDescription(name: "createdAt", type: .date),
            AttributeDescription(name: "photo", type: .binaryData),
            AttributeDescription(name: "code", type: .uuid),
            AttributeDescription(name: "source", type: .uri),
            steps,
        ])
        let step = EntityDescription(name: "Step", properties: [
            AttributeDescription(name: "text", type: .string),
            RelationshipDescription(name: "recipe", destination: "Recipe", inverse: "steps"),
        ])
        return ManagedObjectModel(entities: [recipe, step])
    }

    static func context(_ model: ManagedObjectModel, at url: URL, options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .xml, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func everyAttributeTypeAndOrderedStepsSurviveReopening() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("pantry.xml")
        let code = UUID()
        let created = Date(timeIntervalSinceReferenceDate: 785_000_123.25)
        let context = try Self.context(Self.pantryModel(), at: url)
        let salsa = try context.insertNewObject(forEntityName: "Recipe")
        salsa.setValue("Salsa & <chips>\r\n\"fresh\"", forKey: "name")
        salsa.setValue(Int16(4), forKey: "servings")
        salsa.setValue(Int32(-120), forKey: "calories")
        salsa.setValue(Int64(9_000_000_000), forKey: "views")
        salsa.setValue(4.75, forKey: "rating")
        salsa.setValue(Float(0.1), forKey: "weight")
        salsa.setValue(Decimal(string: "12.34"), forKey: "price")
        salsa.setValue(true, forKey: "isVegetarian")
        salsa.setValue(created, forKey: "createdAt")
        salsa.setValue(Data([0, 1, 2, 250, 255]), forKey: "photo")
        salsa.setValue(code, forKey: "code")
        salsa.setValue(URL(string: "https://example.org/salsa?x=1&y=2"), forKey: "source")
        var steps: [ManagedObject] = []
        for text in ["chop", "mix", "serve"] {
            let step = try context.insertNewObject(forEntityName: "Step")
            step.setValue(text, forKey: "text")
            steps.append(step)
        }
        salsa.setValue(steps.reversed() as [ManagedObject], forKey: "steps")
        let plain = try context.insertNewObject(forEntityName: "Recipe")
        plain.setValue("Toast", forKey: "name")
        try context.save()
        let uri = salsa.objectID.uriRepresentation()

        let reopened = try Self.context(Self.pantryModel(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Recipe", predicate: try QueryPredicate(format: "servings > 2"))
        let found = try reopened.fetch(request)
        #expect(found.count == 1)
        let recipe = try #require(found.first)
        #expect(recipe.objectID.uriRepresentation() == uri, "URIs stay the same across launches")
        #expect(recipe.value(forKey: "name") as? String == "Salsa & <chips>\r\n\"fresh\"")
        #expect(recipe.value(forKey: "servings") as? Int16 == 4)
        #expect(recipe.value(forKey: "calories") as? Int32 == -120)
        #expect(recipe.value(forKey: "views") as? Int64 == 9_000_000_000)
        #expect(recipe.value(forKey: "rating") as? Double == 4.75)
        #expect(recipe.value(forKey: "weight") as? Float == Float(0.1))
        #expect(recipe.value(forKey: "price") as? Decimal == Decimal(string: "12.34"))
        #expect(recipe.value(forKey: "isVegetarian") as? Bool == true)
        #expect(recipe.value(forKey: "createdAt") as? Date == created)
        #expect(recipe.value(forKey: "photo") as? Data == Data([0, 1, 2, 250, 255]))
        #expect(recipe.value(forKey: "code") as? UUID == code)
        #expect(recipe.value(forKey: "source") as? URL == URL(string: "https://example.org/salsa?x=1&y=2"))
        let order = (recipe.value(forKey: "steps") as? [ManagedObject] ?? []).compactMap { $0.value(forKey: "text") as? String }
        #expect(order == ["serve", "mix", "chop"])
        let toast = try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Recipe", predicate: try QueryPredicate(format: "name == 'Toast'")))
        #expect(toast.first?.value(forKey: "servings") == nil, "an attribute without a value stays without one")

        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix("<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">"))
        #expect(text.contains("<object type=\"RECIPE\" id=\"z"))
        #expect(text.contains("<attribute name=\"isvegetarian\" type=\"bool\">1</attribute>"))
        #expect(text.contains("<attribute name=\"createdat\" type=\"date\">785000123.25000000000000000000</attribute>"))
        #expect(text.contains("<relationship name=\"recipe\" type=\"1/1\" destination=\"RECIPE\" idrefs=\"z"))
    }

    @Test func changesAndDeletionsAreWrittenAndRelationshipsAcrossFilesHold() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("music.xml")
        let tests = StoreMigrationTests()
        let context = try Self.context(StoreMigrationTests.model(), at: url)
        try tests.fill(context)
        let before = try tests.summary(context)
        #expect(try tests.summary(Self.context(StoreMigrationTests.model(), at: url)) == before)

        let editing = try Self.context(StoreMigrationTests.model(), at: url)
        let tracks = try editing.fetch(FetchRequest<ManagedObject>(entityName: "Track", predicate: try QueryPredicate(format: "title IN {'A', 'B'}")))
        #expect(tracks.count == 2)
        for track in tracks { editing.delete(track) }
        let artist = try #require(try editing.fetch(FetchRequest<ManagedObject>(entityName: "Artist", predicate: try QueryPredicate(format: "name == 'Nina'"))).first)
        artist.setValue("Nina S.", forKey: "name")
        try editing.save()

        let after = try tests.summary(Self.context(StoreMigrationTests.model(), at: url))
        #expect(after == [
            "Evening E 100 Nina S. [\"jazz\", \"live\"]",
            "Evening C 101 Miles [\"live\"]",
            "Evening D 103 Miles [\"live\"]",
            "tags: 2, artists: 2",
        ], "\(after)")
    }

    @Test func aFileCoreDataWroteOpensAndKeepsItsIDs() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Staff.xml")
        try Self.coreDataFile.write(to: url, atomically: true, encoding: .utf8)
        let context = try Self.context(Self.staffModel(), at: url)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        #expect(store.identifier == "7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE")
        #expect(store.type == .xml)
        let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee", sortDescriptors: [QuerySortDescriptor(key: "name")]))
        #expect(people.map { $0.value(forKey: "name") as? String } == ["Alice", "Bob"])
        let alice = people[0]
        #expect(alice.value(forKey: "salary") as? Int32 == 100)
        #expect((alice.value(forKey: "hireDate") as? Date)?.timeIntervalSinceReferenceDate == 445_103_622.25)
        #expect((alice.value(forKey: "department") as? ManagedObject)?.value(forKey: "name") as? String == "Engineering")
        #expect(people[1].value(forKey: "department") == nil)
        #expect(alice.objectID.uriRepresentation().absoluteString == "x-coredata://7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE/Employee/p102")

        let carol = try context.insertNewObject(forEntityName: "Employee")
        carol.setValue("Carol", forKey: "name")
        carol.setValue(alice.value(forKey: "department"), forKey: "department")
        try context.save()
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("<object type=\"EMPLOYEE\" id=\"z105\">"), "new objects continue the file's numbering")
        #expect(text.contains("<nextObjectID>106</nextObjectID>"))
        #expect(text.contains("<UUID>7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE</UUID>"))
        #expect(text.contains("idrefs=\"z102 z105\""))
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .xml, at: url)
        #expect(metadata["NSStoreUUID"] as? String == "7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE")
        #expect(metadata["NSStoreType"] as? String == "XML")
        #expect(metadata["NSStoreModelVersionHashes"] is [String: Data])
    }

    @Test func storesMoveBetweenSQLiteAndXML() throws {
        let folder = try TemporaryFolder()
        let tests = StoreMigrationTests()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: StoreMigrationTests.model())
        let sqlite = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("music.sqlite"))
        try tests.fill(tests.context(coordinator))
        let before = try tests.summary(tests.context(coordinator))
        let xml = try coordinator.migratePersistentStore(sqlite, to: folder.file("music.xml"), type: .xml)
        #expect(xml.type == .xml)
        #expect(try tests.summary(Self.context(StoreMigrationTests.model(), at: folder.file("music.xml"))) == before)
        try coordinator.migratePersistentStore(xml, to: folder.file("again.sqlite"), type: .sqlite)
        let reopened = try PersistentStoreCoordinator(managedObjectModel: StoreMigrationTests.model())
        try reopened.addPersistentStore(type: .sqlite, at: folder.file("again.sqlite"))
        #expect(try tests.summary(tests.context(reopened)) == before)
    }

    @Test func twoContextsChangingTheSameObjectConflict() throws {
        let folder = try TemporaryFolder()
        let first = try Self.context(Self.staffModel(), at: folder.file("Staff.xml"))
        let alice = try first.insertNewObject(forEntityName: "Employee")
        alice.setValue("Alice", forKey: "name")
        try first.save()
        let second = ManagedObjectContext(concurrencyType: .privateQueue)
        second.persistentStoreCoordinator = first.persistentStoreCoordinator
        let same = try second.existingObject(with: alice.objectID)
        same.setValue("Alicia", forKey: "name")
        alice.setValue("Ali", forKey: "name")
        try first.save()
        #expect(throws: PersistenceError.self) { try second.save() }
        second.mergePolicy = .mergeByPropertyObjectTrump
        try second.save()
        let reader = try Self.context(Self.staffModel(), at: folder.file("Staff.xml"))
        #expect(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Employee")).map { $0.value(forKey: "name") as? String } == ["Alicia"])
    }

    @Test func markerFilesAreRefusedForXMLStores() throws {
        let folder = try TemporaryFolder()
        #expect(throws: PersistenceError.self) {
            _ = try Self.context(Self.staffModel(), at: folder.file("Staff.xml"), options: [StoreOption.externalRecordExtension: "staff"])
        }
    }

    static func staffModel() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Department", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "employees", destination: "Employee", inverse: "department", toMany: true),
            ]),
            EntityDescription(name: "Employee", properties: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "salary", type: .integer32),
                AttributeDescription(name: "hireDate", type: .date),
                RelationshipDescription(name: "department", destination: "Department", inverse: "employees"),
            ]),
        ])
    }

    /// A store in the form Core Data writes on a Mac: capitals for entities, small letters for
    /// properties, `z` ids, dates in seconds since 2001, an unset to-one without `idrefs`.
    static let coreDataFile = """
    <?xml version="1.0"?>
    <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

    <database>
        <databaseInfo>
            <version>134481920</version>
            <UUID>7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE</UUID>
            <nextObjectID>105</nextObjectID>
            <metadata></metadata>
        </databaseInfo>
        <object type="DEPARTMENT" id="z104">
            <attribute name="name" type="string">Engineering</attribute>
            <relationship name="employees" type="0/0" destination="EMPLOYEE" idrefs="z102"></relationship>
        </object>
        <object type="EMPLOYEE" id="z102">
            <attribute name="name" type="string">Alice</attribute>
            <attribute name="salary" type="int32">100</attribute>
            <attribute name="hiredate" type="date">445103622.25000000000000000000</attribute>
            <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z104"></relationship>
        </object>
        <object type="EMPLOYEE" id="z103">
            <attribute name="name" type="string">Bob</attribute>
            <attribute name="salary" type="int32">90</attribute>
            <relationship name="department" type="1/1" destination="DEPARTMENT"></relationship>
        </object>
    </database>

    """
}

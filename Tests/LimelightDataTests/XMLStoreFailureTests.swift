import Foundation
import Testing
@testable import LimelightData

/// XML store files that must be refused, and saves that cannot be written: each says what and
/// where, and nothing on disk or in the context is lost.
struct XMLStoreFailureTests {
    /// Opens `text` as a store of the staff model; the error's description.
    func refusal(_ text: String) throws -> String {
        let folder = try TemporaryFolder()
        let url = folder.file("Staff.xml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        defer { #expect((try? String(contentsOf: url, encoding: .utf8)) == text, "a refused file is left as it was") }
        do {
            _ = try XMLStoreTests.context(XMLStoreTests.staffModel(), at: url)
            return "opened"
        } catch {
            return "\(error)"
        }
    }

    @Test func truncatedAndForeignFilesAreRefusedWithTheirLine() throws {
        let full = XMLStoreTests.coreDataFile
        let truncated = String(full.prefix(full.count / 2))
        let message = try refusal(truncated)
        #expect(message.contains("Staff.xml") && message.contains("is not a Core Data XML store") && message.contains("line"), "\(message)")
        #expect(try refusal("<plist version=\"1.0\"><dict/></plist>").contains("its root element is <plist>, not <database>"))
        #expect(try refusal("").contains("is not a Core Data XML store"))
    }

    @Test func whatTheModelDoesNotHaveIsRefusedNotDropped() throws {
        let file = XMLStoreTests.coreDataFile
        let unknownEntity = try refusal(file.replacingOccurrences(of: "type=\"DEPARTMENT\" id", with: "type=\"TEAM\" id"))
        #expect(unknownEntity.contains("line 11: an object of type 'TEAM', which is no entity of the model"), "\(unknownEntity)")
        let unknownAttribute = try refusal(file.replacingOccurrences(of: "name=\"salary\" type=\"int32\">90", with: "name=\"bonus\" type=\"int32\">90"))
        #expect(unknownAttribute.contains("object z103 (Employee): the entity has no attribute 'bonus'"), "\(unknownAttribute)")
        let missing = try refusal(file.replacingOccurrences(of: "idrefs=\"z102\"", with: "idrefs=\"z102 z999\""))
        #expect(missing.contains("line 13: object z104 (Department).employees names object z999, which the file does not have"), "\(missing)")
        let badValue = try refusal(file.replacingOccurrences(of: ">100<", with: ">a hundred<"))
        #expect(badValue.contains("object z102 (Employee).salary: 'a hundred' is not a value of type Integer 32"), "\(badValue)")
        let twice = try refusal(file.replacingOccurrences(of: "id=\"z103\"", with: "id=\"z102\""))
        #expect(twice.contains("a second object with the id z102"), "\(twice)")
    }

    @Test func aSaveThatCannotBeWrittenChangesNothing() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Staff.xml")
        try XMLStoreTests.coreDataFile.write(to: url, atomically: true, encoding: .utf8)
        let context = try XMLStoreTests.context(XMLStoreTests.staffModel(), at: url)
        let bob = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee", predicate: try QueryPredicate(format: "name == 'Bob'"))).first)
        bob.setValue("Bob\u{1}", forKey: "name")
        let newcomer = try context.insertNewObject(forEntityName: "Employee")
        newcomer.setValue("Dana", forKey: "name")
        #expect(throws: PersistenceError.self) { try context.save() }
        #expect(try String(contentsOf: url, encoding: .utf8) == XMLStoreTests.coreDataFile)
        #expect(context.hasChanges && bob.isUpdated && newcomer.isInserted)

        // Once the value is mended the same changes save, and the earlier attempt left no trace.
        bob.setValue("Robert", forKey: "name")
        try context.save()
        let names = try XMLStoreTests.context(XMLStoreTests.staffModel(), at: url)
            .fetch(FetchRequest<ManagedObject>(entityName: "Employee", sortDescriptors: [QuerySortDescriptor(key: "name")]))
            .compactMap { $0.value(forKey: "name") as? String }
        #expect(names == ["Alice", "Dana", "Robert"])
    }

    @Test func aModelWhoseNamesDifferOnlyInCaseIsRefused() throws {
        let folder = try TemporaryFolder()
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "title", type: .string), AttributeDescription(name: "Title", type: .string),
        ])])
        #expect(throws: PersistenceError.self) { _ = try XMLStoreTests.context(model, at: folder.file("notes.xml")) }
    }

    /// An object numbered with the last number there is crashed opening the file: the next
    /// number was worked out by adding one, and so was the key of the next object with a named
    /// id. The file opens, its named object takes the lowest free key, and new objects get named
    /// ids instead of numbers.
    @Test func aFileUsingTheLastObjectNumberOpensAndNewObjectsStillSave() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Staff.xml")
        let last = "z\(Int64.max)"
        try XMLStoreTests.coreDataFile.replacingOccurrences(of: "z102", with: last).replacingOccurrences(of: "z103", with: "bob")
            .write(to: url, atomically: true, encoding: .utf8)
        let context = try XMLStoreTests.context(XMLStoreTests.staffModel(), at: url)
        let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee", sortDescriptors: [QuerySortDescriptor(key: "name")]))
        #expect(people.map { $0.value(forKey: "name") as? String } == ["Alice", "Bob"])
        #expect(people[0].objectID.uriRepresentation().absoluteString.hasSuffix("/Employee/p\(Int64.max)"))
        #expect(people[1].objectID.primaryKey == 1)
        #expect((people[0].value(forKey: "department") as? ManagedObject)?.value(forKey: "name") as? String == "Engineering")
        for name in ["Carol", "Dana"] {
            try context.insertNewObject(forEntityName: "Employee").setValue(name, forKey: "name")
        }
        try context.save()
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("id=\"\(last)\"") && text.contains("id=\"bob\"") && text.contains("id=\"x"), "named ids for the new objects")
        let names = try XMLStoreTests.context(XMLStoreTests.staffModel(), at: url)
            .fetch(FetchRequest<ManagedObject>(entityName: "Employee", sortDescriptors: [QuerySortDescriptor(key: "name")]))
            .compactMap { $0.value(forKey: "name") as? String }
        #expect(names == ["Alice", "Bob", "Carol", "Dana"])
    }
}

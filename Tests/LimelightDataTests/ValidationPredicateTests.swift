import Foundation
import Testing
@testable import LimelightData

/// Properties' validation predicates (Core Data's `setValidationPredicates(_:withValidationWarnings:)`),
/// checked at save and by `validateValue(_:forKey:)` on a real SQLite store, and read from
/// compiled models.
@Suite struct ValidationPredicateTests {
    /// Shelf (label ≥ 3 characters and not "TBD"; capacity > 0; at most two books) ← Book (title;
    /// its shelf must not be called "Attic").
    static func model() throws -> ManagedObjectModel {
        let label = AttributeDescription(name: "label", type: .string)
        label.setValidationPredicates([try QueryPredicate(format: "length >= 3"), try QueryPredicate(format: "SELF != 'TBD'")],
                                      withValidationWarnings: ["a label needs three characters", "a label must be decided"])
        let capacity = AttributeDescription(name: "capacity", type: .integer32, isOptional: false, defaultValue: Int32(1))
        capacity.setValidationPredicates([try QueryPredicate(format: "SELF > 0")], withValidationWarnings: nil)
        let books = RelationshipDescription(name: "books", destination: "Book", inverse: "shelf", toMany: true)
        books.setValidationPredicates([try QueryPredicate(format: "@count <= 2")], withValidationWarnings: ["a shelf holds two books"])
        let shelf = RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "books")
        shelf.setValidationPredicates([try QueryPredicate(format: "label != 'Attic'")], withValidationWarnings: ["no books in the attic"])
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Shelf", properties: [label, capacity, books]),
            EntityDescription(name: "Book", properties: [AttributeDescription(name: "title", type: .string), shelf]),
        ])
    }

    private func saveFailures(_ context: ManagedObjectContext) -> [ValidationFailure] {
        do {
            try context.save()
            return []
        } catch let error as ValidationError {
            return error.failures
        } catch {
            Issue.record("unexpected error \(error)")
            return []
        }
    }

    @Test func aSaveReportsEachFailedPredicateWithItsWarningAndWritesNothing() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Shelves.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        let short = try context.insertNewObject(forEntityName: "Shelf")
        short.setValue("ab", forKey: "label")
        let undecided = try context.insertNewObject(forEntityName: "Shelf")
        undecided.setValue("TBD", forKey: "label")
        let empty = try context.insertNewObject(forEntityName: "Shelf")
        empty.setValue("Kitchen", forKey: "label")
        empty.setValue(Int32(0), forKey: "capacity")
        let crowded = try context.insertNewObject(forEntityName: "Shelf")
        crowded.setValue("Hall", forKey: "label")
        for title in ["A", "B", "C"] {
            let book = try context.insertNewObject(forEntityName: "Book")
            book.setValue(title, forKey: "title")
            book.setValue(crowded, forKey: "shelf")
        }
        let attic = try context.insertNewObject(forEntityName: "Shelf")
        attic.setValue("Attic", forKey: "label")
        let stored = try context.insertNewObject(forEntityName: "Book")
        stored.setValue(attic, forKey: "shelf")

        let reasons = Set(saveFailures(context).map { "\($0.entityName).\($0.key ?? ""): \($0.reason)" })
        #expect(reasons == [
            "Shelf.label: a label needs three characters",
            "Shelf.label: a label must be decided",
            "Shelf.capacity: does not satisfy SELF > 0",
            "Shelf.books: a shelf holds two books",
            "Book.shelf: no books in the attic",
        ])
        let other = try TestStack.context(model: Self.model(), at: url)
        #expect(try other.count(for: FetchRequest<ManagedObject>(entityName: "Shelf")) == 0)
    }

    @Test func valuesThatMeetThemSaveAndAbsentValuesAreNotChecked() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Shelves.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        let shelf = try context.insertNewObject(forEntityName: "Shelf")
        shelf.setValue("Study", forKey: "label")
        shelf.setValue(Int32(4), forKey: "capacity")
        let book = try context.insertNewObject(forEntityName: "Book")
        book.setValue(shelf, forKey: "shelf")
        let unlabelled = try context.insertNewObject(forEntityName: "Shelf")   // no label, no books
        let loose = try context.insertNewObject(forEntityName: "Book")         // no shelf
        _ = (unlabelled, loose)
        #expect(saveFailures(context).isEmpty)
        let other = try TestStack.context(model: Self.model(), at: url)
        #expect(try other.count(for: FetchRequest<ManagedObject>(entityName: "Shelf")) == 2)
        #expect(try other.count(for: FetchRequest<ManagedObject>(entityName: "Book")) == 2)
    }

    @Test func validateValueChecksThemAsASaveWould() throws {
        let context = try TestStack.context(model: Self.model(), at: nil)
        let shelf = try context.insertNewObject(forEntityName: "Shelf")
        #expect(throws: ValidationFailure.self) { try shelf.validateValue("x", forKey: "label") }
        try shelf.validateValue("Cellar", forKey: "label")
        try shelf.validateValue(nil, forKey: "label")
        let attic = try context.insertNewObject(forEntityName: "Shelf")
        attic.setValue("Attic", forKey: "label")
        let book = try context.insertNewObject(forEntityName: "Book")
        do {
            try book.validateValue(attic, forKey: "shelf")
            Issue.record("a book was let into the attic")
        } catch let failure as ValidationFailure {
            #expect(failure.reason == "no books in the attic")
        }
        try book.validateValue(shelf, forKey: "shelf")
    }

    @Test func aPredicateThatCannotBeEvaluatedFailsNamingItself() throws {
        let note = AttributeDescription(name: "note", type: .string)
        note.setValidationPredicates([try QueryPredicate(format: "SELF > 3")], withValidationWarnings: ["?"])
        let context = try TestStack.context(model: ManagedObjectModel(entities: [EntityDescription(name: "Memo", properties: [note])]), at: nil)
        let memo = try context.insertNewObject(forEntityName: "Memo")
        memo.setValue("text", forKey: "note")
        let failures = saveFailures(context)
        #expect(failures.count == 1)
        #expect(failures.first?.reason.contains("validation predicate SELF > 3 cannot be evaluated") == true)
    }

    @Test func theyAreReadFromCompiledModelsWithTheirWarnings() throws {
        typealias P = ArchivedPredicates
        let model = ArchiveStub("NSManagedObjectModel"), memo = ArchiveStub("NSEntityDescription")
        let text = ArchiveStub("NSAttributeDescription", [("NSPropertyName", "text"), ("NSEntity", memo), ("NSAttributeType", 700), ("NSIsOptional", true),
            ("NSValidationPredicates", ArchivedArray(elements: [
                P.comparison(ArchiveStub("NSSelfExpression"), 6, P.constant("[a-z]+")),                           // a pattern
                P.comparison(P.keyPath("length"), 0, P.constant(40)),                                              // length < 40
                P.comparison(ArchiveStub("NSSelfExpression"), 5, P.constant("draft")),                             // SELF != "draft"
                P.comparison(ArchiveStub("NSSubqueryExpression", [("NSExpressionType", 13)]), 4, P.constant(1)),  // unreadable
            ])),
            ("NSValidationWarnings", ArchivedArray(elements: [1680, "too long", 1660, "?"])),
        ])
        memo.fields = [("NSEntityName", "Memo"), ("NSManagedObjectModel", model),
                       ("NSProperties", ArchivedDictionary(entries: [("text", text)]))]
        model.fields = [("NSEntities", ArchivedDictionary(entries: [("Memo", memo)]))]
        let read = try ManagedObjectModel(archiveData: ArchiveStub.archive(model), source: "Memo.mom")
        let attribute = try #require(read.entity(named: "Memo")?.ownProperties.first as? AttributeDescription)
        #expect(attribute.regularExpression == "[a-z]+")
        #expect(attribute.validationPredicates.map(\.predicateFormat) == ["length < 40", #"SELF != "draft""#])
        #expect(attribute.validationWarnings == ["too long", #"does not satisfy SELF != "draft" (error 1660)"#])

        let context = try TestStack.context(model: read, at: nil)
        let object = try context.insertNewObject(forEntityName: "Memo")
        object.setValue("draft", forKey: "text")
        #expect(saveFailures(context).map(\.reason) == [#"does not satisfy SELF != "draft" (error 1660)"#])
        object.setValue(String(repeating: "a", count: 41), forKey: "text")
        #expect(saveFailures(context).map(\.reason) == ["too long"])
        object.setValue("fine", forKey: "text")
        #expect(saveFailures(context).isEmpty)
    }

    @Test func attributesNameTheirValuesClassAsCoreDataDoes() {
        #expect(AttributeDescription(name: "a", type: .integer16).attributeValueClassName == "NSNumber")
        #expect(AttributeDescription(name: "a", type: .decimal).attributeValueClassName == "NSDecimalNumber")
        #expect(AttributeDescription(name: "a", type: .string).attributeValueClassName == "NSString")
        #expect(AttributeDescription(name: "a", type: .date).attributeValueClassName == "NSDate")
        #expect(AttributeDescription(name: "a", type: .uuid).attributeValueClassName == "NSUUID")
        let color = AttributeDescription(name: "a", type: .transformable)
        #expect(color.attributeValueClassName == nil)
        color.customClassName = "UIColor"
        #expect(color.attributeValueClassName == "UIColor")
    }
}

import Foundation
import Testing
@testable import LimelightData

/// A `.localized` sort (Core Data's `localizedStandardCompare:`) orders runs of digits by their
/// value, in SQL as in memory, so a fetch sorted and paged in the store agrees with the same sort
/// of unsaved objects.
@Suite struct LocalizedSortOrderTests {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Chapter", properties: [
                AttributeDescription(name: "outline", type: .string, isOptional: false, defaultValue: ""),
            ]),
        ])
    }

    static let outlines = ["2", "1.10", "1.2", "1.1", "10", "1.9", "Annex b", "annex A", "1.1.3", "1.1.20"]
    static let expected = ["1.1", "1.1.3", "1.1.20", "1.2", "1.9", "1.10", "2", "10", "annex A", "Annex b"]

    static func filled(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let context = try TestStack.context(model: model(), at: folder.file("outline.sqlite"))
        for outline in outlines {
            try context.insertNewObject(forEntityName: "Chapter").setValue(outline, forKey: "outline")
        }
        try context.save()
        context.reset()
        return context
    }

    static func request(limit: Int = 0, offset: Int = 0, ascending: Bool = true) -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: "Chapter")
        request.sortDescriptors = [QuerySortDescriptor(key: "outline", ascending: ascending, comparison: .localized)]
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    @Test func sortedInTheStoreByNumberWithinText() throws {
        let folder = try TemporaryFolder()
        let context = try Self.filled(folder)
        let saved = try context.fetch(Self.request()).compactMap { $0.value(forKey: "outline") as? String }
        #expect(saved == Self.expected)
        let descending = try context.fetch(Self.request(ascending: false)).compactMap { $0.value(forKey: "outline") as? String }
        #expect(descending == Self.expected.reversed())
    }

    @Test func pagesThroughTheSameOrder() throws {
        let folder = try TemporaryFolder()
        let context = try Self.filled(folder)
        let page = try context.fetch(Self.request(limit: 3, offset: 3)).compactMap { $0.value(forKey: "outline") as? String }
        #expect(page == Array(Self.expected[3..<6]))
    }

    @Test func unsavedObjectsSortAmongSavedOnesAlike() throws {
        let folder = try TemporaryFolder()
        let context = try Self.filled(folder)
        try context.insertNewObject(forEntityName: "Chapter").setValue("1.11", forKey: "outline")
        let all = try context.fetch(Self.request()).compactMap { $0.value(forKey: "outline") as? String }
        var expected = Self.expected
        expected.insert("1.11", at: 6)
        #expect(all == expected)
        try context.save()
        context.reset()
        #expect(try context.fetch(Self.request()).compactMap { $0.value(forKey: "outline") as? String } == expected)
    }
}

import Foundation
import Testing
@testable import LimelightData

/// A transformable's own type, of which the framework has no empty value.
struct ExposureSettings: Codable, Sendable {
    var iso: Int
}

/// Declarations of every shape a key path may name: a renamed key, and types the framework has
/// no empty value of (a non-optional date and to-one).
final class Exposure: ManagedObject {
    @Managed("shutterSpeed") var speed: Double
    @Managed var taken: Date
    @Managed var camera: Photo
    @Managed var notes: String?
    @Managed var settings: ExposureSettings
    var summary: String { "\(speed)" }
}

/// Swift key paths where Core Data code passes key paths: `NSSortDescriptor(keyPath:)` and
/// `%K` with `#keyPath`.
@Suite struct KeyPathNameTests {
    @Test func keyPathsNameTheirDeclarationsProperty() {
        #expect(QuerySortDescriptor(keyPath: \Photo.rating, ascending: false).key == "rating")
        #expect(QuerySortDescriptor(keyPath: \Photo.name).key == "name")
        #expect(QuerySortDescriptor(keyPath: \Exposure.speed).key == "shutterSpeed")
        #expect(QuerySortDescriptor(keyPath: \Exposure.taken).key == "taken")
        #expect(QuerySortDescriptor(keyPath: \Exposure.camera).key == "camera")
        #expect(QuerySortDescriptor(keyPath: \Exposure.notes).key == "notes")
        // Asked again: the same answer (kept).
        #expect(QuerySortDescriptor(keyPath: \Exposure.taken).key == "taken")
    }

    @Test func sortingAndFilteringByKeyPathsFetchTheRightObjects() throws {
        let folder = try TemporaryFolder()
        let context = try TypedFetchRequestTests.stack(folder)
        try context.performAndWait {
            let request = Photo.fetchRequest()
            request.sortDescriptors = [QuerySortDescriptor(keyPath: \Photo.rating, ascending: false)]
            request.predicate = try QueryPredicate(format: "%K != %@", \Photo.name, "Harbour")
            #expect(try context.fetch(request).map(\.name) == ["Mountain", "Bridge"])
        }
    }

    @Test func aKeyPathThatIsNoDeclarationIsRefusedByTheFetch() throws {
        let computed = QuerySortDescriptor(keyPath: \Exposure.summary)
        #expect(computed.key.contains("Exposure"))
        // Not read at all (reading it would have no value to give): left unnamed, not a crash.
        #expect(QuerySortDescriptor(keyPath: \Exposure.settings).key.contains("Exposure"))
        let folder = try TemporaryFolder()
        let context = try TypedFetchRequestTests.stack(folder)
        context.performAndWait {
            let request = Photo.fetchRequest()
            request.sortDescriptors = [computed]
            #expect { try context.fetch(request) } throws: { "\($0)".contains("no property") && "\($0)".contains("Exposure") }
            #expect(throws: PredicateParseError.self) { try QueryPredicate(format: "%K == 1", \Exposure.summary) }
        }
    }
}

/// Predicates built in code, as Core Data code builds them with `NSCompoundPredicate`.
@Suite struct CompoundPredicateTests {
    @Test func compoundsBuiltInCodeMatchInSQLAndInMemory() throws {
        let folder = try TemporaryFolder()
        let context = try TypedFetchRequestTests.stack(folder)
        let good = try QueryPredicate(format: "rating >= 4")
        let ada = try QueryPredicate(format: "photographer.firstName == 'Ada'")
        let cases: [(QueryPredicate, [String])] = [
            (QueryPredicate(andPredicateWithSubpredicates: [good, ada]), ["Bridge"]),
            (QueryPredicate(orPredicateWithSubpredicates: [good, ada]), ["Bridge", "Harbour", "Mountain"]),
            (QueryPredicate(notPredicateWithSubpredicate: ada), ["Mountain"]),
            (QueryPredicate(andPredicateWithSubpredicates: []), ["Bridge", "Harbour", "Mountain"]),
            (QueryPredicate(orPredicateWithSubpredicates: []), []),
            (QueryPredicate(value: true), ["Bridge", "Harbour", "Mountain"]),
            (QueryPredicate(value: false), []),
        ]
        try context.performAndWait {
            let photos = try context.fetch(Photo.fetchRequest())
            for (predicate, expected) in cases {
                let request = Photo.fetchRequest()
                request.predicate = predicate
                request.sortDescriptors = [QuerySortDescriptor(keyPath: \Photo.name)]
                #expect(try context.fetch(request).compactMap(\.name) == expected, "\(predicate) in SQL")
                let inMemory = try photos.filter { try predicate.evaluate(with: $0) }.compactMap(\.name).sorted()
                #expect(inMemory == expected, "\(predicate) in memory")
                #expect(try QueryPredicate(format: predicate.predicateFormat) == predicate || predicate.predicateFormat.hasSuffix("PREDICATE"))
            }
        }
    }
}

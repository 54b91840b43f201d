import Foundation
// Temporary until the predicate language lands: the minimal surface the fetch path uses.
public struct QueryPredicate: Sendable, Equatable {
    public var predicateFormat: String
    public init(format: String) { predicateFormat = format }
    public init(format: String, argumentArray: [Any?]) throws {
        throw PersistenceError.invalidRequest("predicate format strings are not parsed yet: \(format)")
    }
    public func evaluate(with object: Any?) throws -> Bool { true }
}

enum FetchedPropertySupport {
    static func predicate(format: String, source: ManagedObject) throws -> QueryPredicate {
        QueryPredicate(format: format)
    }
}


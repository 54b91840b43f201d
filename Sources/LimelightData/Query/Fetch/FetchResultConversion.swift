import Foundation

/// A fetch's results as the request's `ResultType`: objects as their class, IDs, dictionaries as
/// `[String: Any]` or `NSDictionary`, counts as `Int` or `NSNumber`, any of them as
/// `FetchRequestResult` or `Any`.
enum FetchResultConversion {
    static func objects<Result>(_ objects: [ManagedObject], for request: FetchSpecification) throws -> [Result] {
        // The usual untyped request: the same array, not a cast per object.
        if Result.self == ManagedObject.self { return unsafeBitCast(objects, to: [Result].self) }
        if let typed = objects as? [Result] { return typed }
        let stranger = objects.first { !($0 is Result) }.map { "\(type(of: $0)) objects of entity \($0.entity.name)" } ?? "other objects"
        throw PersistenceError.invalidRequest(
            "the request for \(request.subject) is typed \(Result.self), but it fetched \(stranger): register \(Result.self) for the entity (ManagedObjectClassRegistry) or type the request by the class its objects are")
    }

    static func objectIDs<Result>(_ ids: [ManagedObjectID], for request: FetchSpecification) throws -> [Result] {
        // The usual request, typed by what it fetches: the same array. `as? [Result]` would cast
        // element by element through the runtime even to the array's own type, about 300
        // instructions an ID, a third of what fetching it costs.
        if Result.self == ManagedObjectID.self { return unsafeBitCast(ids, to: [Result].self) }
        if let typed = ids as? [Result] { return typed }
        throw mismatch(request, given: "managed object IDs", wanted: Result.self)
    }

    static func dictionaries<Result>(_ rows: [[String: Any]], for request: FetchSpecification) throws -> [Result] {
        // As for IDs: the same array, not a cast per row.
        if Result.self == [String: Any].self { return unsafeBitCast(rows, to: [Result].self) }
        if Result.self == NSDictionary.self, let typed = rows.map({ NSDictionary(dictionary: $0) }) as? [Result] { return typed }
        if let typed = rows as? [Result] { return typed }
        throw mismatch(request, given: "dictionaries", wanted: Result.self)
    }

    static func count<Result>(_ count: Int, for request: FetchSpecification) throws -> [Result] {
        if Result.self == NSNumber.self, let typed = [NSNumber(value: count)] as? [Result] { return typed }
        if let typed = [count] as? [Result] { return typed }
        throw mismatch(request, given: "a count", wanted: Result.self)
    }

    private static func mismatch(_ request: FetchSpecification, given: String, wanted: Any.Type) -> PersistenceError {
        .invalidRequest("the request for \(request.subject) is typed \(wanted), but its resultType .\(request.resultType) gives \(given): type the request accordingly, or use execute(_:), fetchObjectIDs(_:), fetchDictionaries(_:) or count(for:)")
    }
}

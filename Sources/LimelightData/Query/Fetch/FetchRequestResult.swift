import Foundation

/// What a fetch request can return, Core Data's `NSFetchRequestResult`: managed objects, their IDs,
/// dictionaries (`[String: Any]` or `NSDictionary`) and counts (`Int` or `NSNumber`).
///
/// `FetchRequest<FetchRequestResult>` is the untyped request Core Data code writes as
/// `NSFetchRequest<NSFetchRequestResult>`: its results are whatever its `resultType` asks for.
public protocol FetchRequestResult {}

extension ManagedObject: FetchRequestResult {}
extension ManagedObjectID: FetchRequestResult {}
extension NSDictionary: FetchRequestResult {}
extension NSNumber: FetchRequestResult {}
extension Int: FetchRequestResult {}
extension Dictionary: FetchRequestResult where Key == String, Value == Any {}

extension FetchRequestResult where Self: ManagedObject {
    /// A request for objects of this class's entity, typed by the class:
    /// `let recipes = try context.fetch(Recipe.fetchRequest())` is a `[Recipe]`. The entity is
    /// found in the fetching context's model when the request runs, as `init(context:)` finds it.
    public static func fetchRequest() -> FetchRequest<Self> {
        FetchRequest<Self>(resultClass: Self.self)
    }

    /// The same request with results of another type, as Core Data's untyped
    /// `NSManagedObject.fetchRequest()` gives: `let all: FetchRequest<FetchRequestResult> = Recipe.fetchRequest()`.
    public static func fetchRequest<Result>() -> FetchRequest<Result> {
        FetchRequest<Result>(resultClass: Self.self)
    }
}

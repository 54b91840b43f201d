import Foundation

/// Inserts objects in the store itself, without a context, as Core Data's `NSBatchInsertRequest`:
/// the objects come as an array of dictionaries, or one at a time from a handler that fills a
/// dictionary or sets the properties of an object it is handed.
///
/// Every form does the same: defaults fill what an object leaves out, values are converted to
/// their attributes' types, and a required attribute left without a value refuses the whole
/// request, naming the object by its number (the request is one transaction: nothing is
/// written). Into an entity with uniqueness constraints it updates the objects that already hold
/// an object's constrained values, by the context's merge policy (an upsert). Marker files and
/// persistent history follow; contexts are not told (merge the result's IDs).
///
/// The handler forms stream: each object is written as the handler makes it, so inserting
/// millions of objects does not hold them all (an upsert is the exception: it compares every
/// object with the ones before it, so it keeps them until the end). The fastest form is
/// `managedObjectHandler` with a `ManagedObject` subclass: its typed `@Managed` setters write
/// straight into the object's values, with no dictionary per object.
///
/// ```swift
/// var next = 0
/// let request = BatchInsertRequest(entityName: "Reading", managedObjectHandler: { object in
///     guard next < readings.count, let reading = object as? Reading else { return true }
///     reading.celsius = readings[next]
///     next += 1
///     return false
/// })
/// try context.execute(request)
/// ```
public final class BatchInsertRequest: @unchecked Sendable {
    public enum ResultType: Sendable {
        case statusOnly
        case count
        case objectIDs
    }

    /// The entity inserted into when the request was made with one; the one of the context's
    /// model named `entityName` is used (an entity of another copy of the model has the same name).
    public let entity: EntityDescription?
    public let entityName: String
    /// The objects to insert, as dictionaries of attribute name to value; used when no handler
    /// is set.
    public var objectsToInsert: [[String: Any]]?
    /// Called once per object with an empty dictionary to fill with its attribute values; returns
    /// `true` to stop, and the dictionary of that call is not inserted.
    ///
    /// An `inout [String: Any]` rather than Core Data's `NSMutableDictionary`: Swift code written
    /// for Core Data mostly sets values by subscript (`dictionary["title"] = title`), which
    /// compiles unchanged against either, and a Swift dictionary keeps each value as it is, where
    /// Foundation's boxes every number on Linux. The handler is handed the same dictionary, emptied,
    /// every time, so no dictionary is made per object. Code that calls `NSMutableDictionary`'s own
    /// methods (`addEntries(from:)`) gets the `NSMutableDictionary` form of the initializers.
    public var dictionaryHandler: ((inout [String: Any]) -> Bool)?
    /// Called once per object with an object of the entity (of its registered class) to set the
    /// properties of; returns `true` to stop, and the object of that call is not inserted.
    ///
    /// The object belongs to no context, and it is not kept: it is the same object every time,
    /// set back to the entity's defaults before each call, as Core Data allows.
    public var managedObjectHandler: ((ManagedObject) -> Bool)?
    public var resultType: ResultType = .statusOnly

    public init(entityName: String, objects: [[String: Any]]) {
        entity = nil
        self.entityName = entityName
        objectsToInsert = objects
    }

    public init(entity: EntityDescription, objects: [[String: Any]]) {
        self.entity = entity
        entityName = entity.name
        objectsToInsert = objects
    }

    public init(entityName: String, dictionaryHandler: @escaping (inout [String: Any]) -> Bool) {
        entity = nil
        self.entityName = entityName
        self.dictionaryHandler = dictionaryHandler
    }

    public init(entity: EntityDescription, dictionaryHandler: @escaping (inout [String: Any]) -> Bool) {
        self.entity = entity
        entityName = entity.name
        self.dictionaryHandler = dictionaryHandler
    }

    /// Core Data's form, for a handler that uses `NSMutableDictionary`'s own methods. Each call gets
    /// a new dictionary whose entries are then copied; prefer the `inout [String: Any]` form, which
    /// a closure that only sets values by subscript gets without saying.
    @_disfavoredOverload
    public convenience init(entityName: String, dictionaryHandler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entityName: entityName, dictionaryHandler: Self.bridging(dictionaryHandler))
    }

    /// Core Data's form, for a handler that uses `NSMutableDictionary`'s own methods (see
    /// `init(entityName:dictionaryHandler:)`).
    @_disfavoredOverload
    public convenience init(entity: EntityDescription, dictionaryHandler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entity: entity, dictionaryHandler: Self.bridging(dictionaryHandler))
    }

    public init(entityName: String, managedObjectHandler: @escaping (ManagedObject) -> Bool) {
        entity = nil
        self.entityName = entityName
        self.managedObjectHandler = managedObjectHandler
    }

    public init(entity: EntityDescription, managedObjectHandler: @escaping (ManagedObject) -> Bool) {
        self.entity = entity
        entityName = entity.name
        self.managedObjectHandler = managedObjectHandler
    }

    /// A Swift dictionary handler that runs `handler` on a new `NSMutableDictionary` and copies
    /// its entries. A key that is no string is kept as its description, so the request's error
    /// names it rather than the entry being lost.
    private static func bridging(_ handler: @escaping (NSMutableDictionary) -> Bool) -> (inout [String: Any]) -> Bool {
        { row in
            let dictionary = NSMutableDictionary()
            let stops = handler(dictionary)
            guard !stops else { return true }
            for (key, value) in dictionary {
                row[key as? String ?? "\(key)"] = value
            }
            return false
        }
    }
}

import Foundation

/// An object another context or process saved (or deleted) since this context read it, as a save
/// hands it to the merge policy: Core Data's `NSMergeConflict`.
///
/// Limelight keeps no row cache between contexts and the store: every conflict is one between the
/// object and the store's row. So `cachedSnapshot`, what Core Data's coordinator layer holds, is
/// the store's row as it is now, as is `persistedSnapshot`; code written for either of Core Data's
/// two kinds of conflict finds the other writer's values where it looks. The values this context
/// read the object at are its `committedValues(forKeys:)` until the conflict is settled.
///
/// Snapshots hold every attribute and to-one relationship (as its `ManagedObjectID`), an empty
/// value as `NSNull`; to-many relationships are not in them, as in Core Data.
public final class MergeConflict: CustomStringConvertible {
    /// The object of this context that conflicts.
    public let sourceObject: ManagedObject
    /// The object's values in this context when the save met the conflict: what it would write.
    public let objectSnapshot: [String: Any]?
    /// The store's values of the object now; `nil` when the other writer deleted it.
    public let cachedSnapshot: [String: Any]?
    /// The store's values of the object now; `nil` when the other writer deleted it.
    public let persistedSnapshot: [String: Any]?
    /// The object's version in the store now; 0 when the other writer deleted it.
    public let newVersionNumber: Int
    /// The version this context read the object at.
    public let oldVersionNumber: Int

    /// The store's row, for settling.
    let row: StoreRow?
    /// `oldVersionNumber` as the object keeps it: an object still at it is not settled yet.
    let readVersion: Int64
    /// The saving context, which settles the conflict.
    private(set) weak var context: ManagedObjectContext?

    init(_ object: ManagedObject, row: StoreRow?, context: ManagedObjectContext) {
        sourceObject = object
        objectSnapshot = MergeConflict.snapshot(object.values, of: object.entity)
        let stored = row.map { MergeConflict.snapshot($0.values, of: object.entity) }
        cachedSnapshot = stored
        persistedSnapshot = stored
        newVersionNumber = row.map { Int($0.version) } ?? 0
        oldVersionNumber = Int(object.storeVersion)
        self.row = row
        readVersion = object.storeVersion
        self.context = context
    }

    public var description: String {
        "MergeConflict for \(sourceObject.objectID) with oldVersion = \(oldVersionNumber) and newVersion = \(newVersionNumber)"
    }

    /// One object's values (`slots`, laid out as `entity`'s properties) as a snapshot dictionary:
    /// attributes and to-ones, empty ones as `NSNull`; no to-many, transient or fetched property.
    static func snapshot(_ slots: [StoredValue], of entity: EntityDescription) -> [String: Any] {
        var result: [String: Any] = [:]
        for (index, property) in entity.properties.enumerated() where index < slots.count && !property.isTransient {
            if property is FetchedPropertyDescription { continue }
            if let relationship = property as? RelationshipDescription, relationship.isToMany { continue }
            result[property.name] = slots[index].value ?? NSNull()
        }
        return result
    }
}

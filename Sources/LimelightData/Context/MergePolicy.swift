import Foundation

/// The five ways of settling a conflict that Core Data's merge policies know (`NSMergePolicyType`),
/// under its case names.
public enum MergePolicyType: UInt, Sendable {
    /// The save fails with `PersistenceError.conflict` (or `.constraintConflict`) and nothing is
    /// written.
    case errorMergePolicyType = 0
    /// Property by property, what the other writer changed wins; this context's other changes
    /// are kept.
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Property by property, what this context changed wins; the other writer's other changes
    /// are kept.
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// This context's objects are written as they are, over whatever the store holds.
    case overwriteMergePolicyType = 3
    /// This context's changes to the conflicting objects are dropped for what the store holds.
    case rollbackMergePolicyType = 4
}

/// How a save settles conflicts: objects another context or process saved since this context
/// read them (optimistic locking), and new objects whose uniqueness-constrained values another
/// object holds. Core Data's `NSMergePolicy`: a class a program can subclass.
///
/// A save gathers the conflicts it meets and hands them to `resolve(mergeConflicts:)`, which hands
/// the optimistic-locking ones (`MergeConflict`) to `resolve(optimisticLockingConflicts:)` and the
/// constraint ones (`ConstraintConflict`) to `resolve(constraintConflicts:)`. These settle them as
/// `mergeType` says. A subclass overrides any of the three to settle conflicts its own way: it may
/// change the objects (on the saving context's queue, where it is called), call `super` for what
/// it leaves to the type, or throw, which fails the save with nothing written and the context's
/// changes kept (those the policy made so far included). What happens once a method returns:
/// - An optimistic-locking conflict the policy did not settle through `super` is settled by the
///   object's values as they are then: they are written over the store's, as with `.overwrite`
///   (an object the other writer deleted is still a conflict, reported as with `.error`).
/// - A constraint conflict left in place fails the save with `PersistenceError.constraintConflict`.
///
/// A save that goes on losing races to other writers hands each round's conflicts to the policy,
/// three rounds at most.
///
/// Thread safety: one policy serves contexts on any queue (the shared instances serve every
/// context of the process) and is called on whichever context saves. Its one property is set by
/// the initializer and never changes, so sharing it needs no lock; the class is `@unchecked
/// Sendable` only because a class open for subclassing cannot be checked. A subclass restates
/// `@unchecked Sendable` (Swift asks it to), and one with state of its own must keep that safe to
/// use from several queues at once, or give each context its own instance.
open class MergePolicy: CustomStringConvertible, @unchecked Sendable {
    /// How this policy settles what a subclass leaves to it.
    public let mergeType: MergePolicyType

    /// A policy that settles conflicts as `type` says (Core Data's `init(merge:)`).
    public init(merge type: MergePolicyType) {
        mergeType = type
    }

    /// The save fails with the conflict, writing nothing: the default of every context.
    public static let error = MergePolicy(merge: .errorMergePolicyType)
    /// The store's values win where the other writer changed them.
    public static let mergeByPropertyStoreTrump = MergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    /// This context's values win where it changed them.
    public static let mergeByPropertyObjectTrump = MergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    /// This context's objects are written whole.
    public static let overwrite = MergePolicy(merge: .overwriteMergePolicyType)
    /// This context's changes to the conflicting objects go.
    public static let rollback = MergePolicy(merge: .rollbackMergePolicyType)

    /// Settles every conflict of `list`: the `MergeConflict`s by
    /// `resolve(optimisticLockingConflicts:)`, then the `ConstraintConflict`s by
    /// `resolve(constraintConflicts:)`. Anything else in the list is ignored.
    open func resolve(mergeConflicts list: [Any]) throws {
        let locking = list.compactMap { $0 as? MergeConflict }
        let constraint = list.compactMap { $0 as? ConstraintConflict }
        if !locking.isEmpty { try resolve(optimisticLockingConflicts: locking) }
        if !constraint.isEmpty { try resolve(constraintConflicts: constraint) }
    }

    /// Settles objects another writer saved since their context read them, by `mergeType`:
    /// each takes the store's current values as its saved state, and its values become the type's
    /// mix of the store's and its own changes. An object the other writer deleted leaves the
    /// context for the store-first types; the object-first ones cannot bring a deleted row back
    /// and throw `PersistenceError.conflict` for it. An object a `detectConflicts(for:)` checked
    /// and that is unchanged takes the store's values whatever the type. With
    /// `.errorMergePolicyType` this throws `PersistenceError.conflict` naming every object of the
    /// list and changes nothing. A conflict settled already is left alone.
    open func resolve(optimisticLockingConflicts list: [MergeConflict]) throws {
        guard !list.isEmpty else { return }
        guard mergeType != .errorMergePolicyType else {
            throw PersistenceError.conflict(objects: list.map(\.sourceObject.objectID))
        }
        for conflict in list {
            try conflict.context?.settle(conflict, as: mergeType)
        }
    }

    /// Settles new objects whose uniqueness-constrained values another object holds, by
    /// `mergeType`. Two or more new objects with the same values (no `databaseObject`) become
    /// one: the first made, its empty values filled from the others. A new object whose values a
    /// saved object holds becomes that object: with `.mergeByPropertyObjectTrumpMergePolicyType`
    /// its own values win where it has them; with `.overwriteMergePolicyType` all of them; with
    /// `.mergeByPropertyStoreTrumpMergePolicyType` the saved ones win where the store has them;
    /// with `.rollbackMergePolicyType` the saved object stays as it was. To-many relationships of
    /// both are kept, and relationships to an object that went point at the one that stayed.
    /// With `.errorMergePolicyType` this throws `PersistenceError.constraintConflict` for the
    /// first conflict, naming its constraint, values and objects, and changes nothing. Objects
    /// that already left their context, or are no longer new, are left alone.
    open func resolve(constraintConflicts list: [ConstraintConflict]) throws {
        guard let first = list.first else { return }
        guard mergeType != .errorMergePolicyType else { throw first.error }
        try first.context?.settle(list, as: mergeType)
    }

    open var description: String { "\(type(of: self))(\(mergeType))" }
}

extension ManagedObjectContext {
    /// Makes the next `save()` fail if `object` changed in its store since this context read it,
    /// although the object itself is unchanged here, as Core Data's `detectConflicts(for:)`:
    /// optimistic locking for what a save depends on without writing it (the account a transfer
    /// was checked against). Changed and deleted objects are always checked.
    ///
    /// A conflict is settled by `mergePolicy` like any other (the object then takes what the
    /// store holds); with `.error` the save throws `PersistenceError.conflict` naming it. The
    /// check is made in the save's transaction; nothing is written for the object, and its
    /// version does not move. In a child context the object is checked when the last ancestor
    /// saves to the store. New objects and objects of other contexts are ignored.
    public func detectConflicts(for object: ManagedObject) {
        guard object.managedObjectContext === self, !object.objectID.isTemporaryID else { return }
        // The version the check compares with is the one the values were read at.
        if object.faultFlag { fireFault(object) }
        guard !object.faultFlag, !object.inaccessibleFlag else { return }
        conflictCheckedObjects.insert(object)
    }
}

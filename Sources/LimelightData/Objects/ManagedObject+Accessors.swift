import Foundation

/// A change announced with `willChangeValue(forKey:)` and not yet ended: the object, the key, the
/// property's slot (`nil` for a key the entity does not model) and the value it had.
struct OpenChange {
    let object: ManagedObject
    let key: String
    let index: Int?
    let oldValue: StoredValue
}

/// What hand-written accessors call around primitive values, as in Core Data:
///
/// ```swift
/// var title: String? {
///     get { willAccessValue(forKey: "title"); defer { didAccessValue(forKey: "title") }
///           return primitiveValue(forKey: "title") as? String }
///     set { willChangeValue(forKey: "title"); setPrimitiveValue(newValue, forKey: "title")
///           didChangeValue(forKey: "title") }
/// }
/// ```
///
/// A primitive value set between `willChangeValue` and `didChangeValue` is a change like any
/// other: the object counts as updated, undo can take it back, observers hear of it, and a
/// relationship's inverse follows. Without the pair, `setPrimitiveValue` changes the value alone.
extension ManagedObject {
    /// Loads a fault's values before a custom accessor reads a primitive value.
    public func willAccessValue(forKey key: String?) {
        if faultFlag { managedObjectContext?.fireFault(self) }
    }

    /// Ends what `willAccessValue(forKey:)` began. Nothing is left to do: observations here
    /// (`observe(_:options:changeHandler:)`) are told of changes, not of reads.
    public func didAccessValue(forKey key: String?) {}

    /// Announces that the value of `key` is about to change through `setPrimitiveValue(_:forKey:)`;
    /// `didChangeValue(forKey:)` ends the change. Pairs may nest: the outermost records it.
    public func willChangeValue(forKey key: String) {
        if faultFlag { managedObjectContext?.fireFault(self) }
        guard let context = managedObjectContext else { return }
        let index = entityLayout.keys.index(of: key)
        context.openChanges.append(OpenChange(object: self, key: key, index: index, oldValue: index.map(slotBeforeChange) ?? .null))
    }

    /// Records the change `willChangeValue(forKey:)` announced, if the value changed.
    ///
    /// For a key the entity does not model, the object counts as updated only when its class's
    /// `contextShouldIgnoreUnmodeledPropertyChanges` is `false`.
    public func didChangeValue(forKey key: String) {
        guard let context = managedObjectContext,
              let position = context.openChanges.lastIndex(where: { $0.object === self && $0.key == key }) else { return }
        let change = context.openChanges.remove(at: position)
        // An enclosing pair for the same key records the whole change when it ends.
        guard !context.openChanges.contains(where: { $0.object === self && $0.key == key }) else { return }
        guard let index = change.index else {
            if !Self.contextShouldIgnoreUnmodeledPropertyChanges { context.markUpdated(self) }
            return
        }
        primitiveValueDidChange(at: index, from: change.oldValue, in: context)
    }

    /// A slot's value before a change: a to-many's members loaded, so the change can be told
    /// apart from them.
    private func slotBeforeChange(_ index: Int) -> StoredValue {
        guard entityLayout.kinds[index] == .toMany, let relationship = entity.properties[index] as? RelationshipDescription else {
            return values[index]
        }
        return .toMany(.loaded(relatedIDsLoaded(relationship, at: index)))
    }

    /// Tracks a change made to a slot by `setPrimitiveValue`: the object is updated, undo can
    /// put `old` back, and a relationship's inverse follows the change.
    private func primitiveValueDidChange(at index: Int, from old: StoredValue, in context: ManagedObjectContext) {
        let new = values[index]
        guard !StoredValue.same(old, new) else { return }
        context.objectDidChange(self, index: index, oldValue: old, registerUndo: true)
        guard let relationship = entity.properties[index] as? RelationshipDescription,
              let inverse = relationship.inverseRelationship else { return }
        let before: [ManagedObjectID], after: [ManagedObjectID]
        if relationship.isToMany {
            if case .toMany(.loaded(let ids)) = old { before = ids.ids } else { before = [] }
            if case .toMany(.loaded(let ids)) = new { after = ids.ids } else { after = [] }
        } else {
            before = old.objectID.map { [$0] } ?? []
            after = new.objectID.map { [$0] } ?? []
        }
        let kept = Set(before).intersection(after)
        for id in before where !kept.contains(id) { context.object(with: id).unlinkInverse(inverse, from: objectID) }
        for id in after where !kept.contains(id) { context.object(with: id).linkInverse(inverse, to: self) }
    }
}

import Foundation

/// An object of the graph: its values are described by an entity and tracked by a context.
///
/// Create objects only through an entity and a context (`init(entity:insertInto:)` or
/// `context.insertNewObject(forEntityName:)`). Subclass to give an entity typed properties with
/// `@Managed`; override the hooks (`awakeFromInsert`, `willSave` …) for behaviour. An object belongs
/// to its context's queue: pass its `objectID` to other contexts, not the object.
open class ManagedObject: Hashable, CustomStringConvertible {
    public let entity: EntityDescription
    /// The entity's layout, kept as a constant for key-value access.
    @usableFromInline final let entityLayout: EntityLayout
    @exclusivity(unchecked) public internal(set) var objectID: ManagedObjectID

    // The flags follow the ID on purpose: an ID is 25 bytes (its entity, its store and a 9-byte
    // key), and Swift lays the one-byte fields after it into the 7 bytes that round it up to 32.
    // Declared anywhere else they cost a word of their own (an object was 216 bytes, now 136).

    @usableFromInline @exclusivity(unchecked) final var faultFlag = false
    @exclusivity(unchecked) var insertedFlag = false
    @exclusivity(unchecked) var deletedFlag = false
    @exclusivity(unchecked) var updatedFlag = false
    /// A fault whose row was gone from its store when it fired (`shouldDeleteInaccessibleFaults`):
    /// it reads as deleted, with empty values, and no save touches it.
    @exclusivity(unchecked) var inaccessibleFlag = false
    /// A new object whose insertion observers have heard of: its later changes are reported as
    /// updates (Core Data's objects-did-change does the same), where earlier ones are part of
    /// the insertion.
    @exclusivity(unchecked) var insertionAnnounced = false
    /// The seventh byte: flags set only in some uses (`announcedToStore`, `isUnderValidation`).
    @exclusivity(unchecked) var occasionalFlags: OccasionalFlags = []

    /// The context the object is registered in; `nil` after it was deleted and saved, or reset,
    /// and once the context is gone.
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        get { contextReference?.context }
        set { contextReference = newValue?.objectReference }
    }
    @exclusivity(unchecked) private var contextReference: ContextReference?
    /// Whether the object was never inserted into a context (nor fetched into one): a change to
    /// it has no one to tell.
    var belongsToNoContext: Bool { contextReference == nil }

    // The state below is read and written for every value of every object: its accesses skip
    // the run-time exclusivity check (none of them overlaps another; all run on the context's queue).

    /// Current values, one slot per property of `entity.properties`.
    @usableFromInline @exclusivity(unchecked) final var values: [StoredValue]
    /// Values as last read from or written to the store, for change detection and rollback.
    @exclusivity(unchecked) var committedValues: [StoredValue]?
    /// The values as the last `processPendingChanges()` left them, for
    /// `changedValuesForCurrentEvent()`; `nil` when they were the saved ones (`committedValues`).
    /// Taken at the end of each event in which the object changed: sharing the array costs a
    /// reference, and nothing is done for an object as it changes.
    @exclusivity(unchecked) var eventValues: [StoredValue]?
    /// The row's `Z_OPT` when it was read: the optimistic-locking version. For a fault with a
    /// cached row, that row's.
    @exclusivity(unchecked) var storeVersion: Int64 = 0
    /// The values of the row fetched with the object but not yet made its values (Core Data's row
    /// cache), its version in `storeVersion`: the object stays a fault until touched, and firing
    /// it then needs no query. The row's ID is the object's own, so it is not kept twice.
    @exclusivity(unchecked) var cachedRowValues: [StoredValue]?
    /// For a fault reached through a to-many relationship: the objects of that relationship, so
    /// touching one fires them together (batch faulting) instead of one query per object.
    @exclusivity(unchecked) var faultSiblings: FaultSiblings?
    /// Where the object stands in `faultSiblings.ids` (a group of more than `Int32.max` objects
    /// adopts none past that).
    @exclusivity(unchecked) var faultSiblingPosition: Int32 = 0
    /// Where the context's registry keeps the object (`ObjectRegistry`); -1 when it is in none.
    @exclusivity(unchecked) var registrySlot: Int32 = -1
    /// What few objects have (fetched properties' results, prefetched objects, key-value
    /// observers), in one object of its own made on first use: `nil` for the rest.
    @exclusivity(unchecked) var rareState: ManagedObjectRareState?

    /// Creates an object of `entity`, inserted into `context` when one is given.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.entity = entity
        self.entityLayout = entity.layout
        self.objectID = ManagedObjectID(temporaryFor: entity)
        self.values = entityLayout.emptyValues
        if let context { context.insert(self) }
    }

    /// A new object of the entity this class represents, inserted into `context`, as Core Data's
    /// `init(context:)`: `let salsa = try Recipe(context: context)`.
    ///
    /// The entity is the one of the context's model that the class is registered for
    /// (`ManagedObjectClassRegistry`); failing that, the one whose class name or entity name is
    /// the class's name, for which the class is then registered, so that fetches give objects of
    /// this class too. Throws when no entity, or more than one, fits (Core Data stops the program).
    ///
    /// Declared in the class, not an extension, so that a subclass may declare its own
    /// `convenience init(context:)`, as apps written for Core Data do.
    public convenience init(context: ManagedObjectContext) throws {
        let entity = try Self.entity(inModelOf: context)
        self.init(entity: entity, insertInto: context)
    }

    deinit {
        // The context's registry does not keep the object alive; its entry goes with it.
        managedObjectContext?.objectDidGo(self)
    }

    // MARK: State

    public var isInserted: Bool { insertedFlag }
    /// Whether the object will be deleted by the next save, or is gone from its store already (a
    /// fault that found no row, with `shouldDeleteInaccessibleFaults`).
    public var isDeleted: Bool { deletedFlag || inaccessibleFlag }
    /// Whether the object has unsaved changes to its values.
    public var isUpdated: Bool { updatedFlag && !insertedFlag && !deletedFlag }
    /// Whether the values have not been loaded yet; touching any value loads them.
    public var isFault: Bool { faultFlag }
    /// 0 when the object's values are loaded, as Core Data's `faultingState`; otherwise (a fault,
    /// whose values load when touched) another value.
    public var faultingState: Int { faultFlag ? 1 : 0 }
    /// Whether changes announced with `willChangeValue(forKey:)`/`didChangeValue(forKey:)` for a
    /// key the entity does not model leave the object unchanged (`true`, Core Data's default);
    /// a class that returns `false` is counted as updated by such a change, so its context
    /// saves it (`willSave()` runs, its version moves on) and observers hear of it.
    open class var contextShouldIgnoreUnmodeledPropertyChanges: Bool { true }
    public var hasChanges: Bool { insertedFlag || deletedFlag || updatedFlag }

    /// Stored properties whose value differs from the last saved one (all set values for a new
    /// object).
    public func changedValues() -> [String: Any?] {
        guard !faultFlag else { return [:] }
        var result: [String: Any?] = [:]
        for (index, property) in entity.properties.enumerated() where !property.isTransient {
            if property is FetchedPropertyDescription { continue }
            let current = values[index]
            if let committed = committedValues {
                if !StoredValue.same(current, committed[index]) { result[property.name] = current.value }
            } else if !current.isNull {
                result[property.name] = current.value
            }
        }
        return result
    }

    /// The stored properties changed since the context last processed its changes (its last
    /// `processPendingChanges()`, which posts `objectsDidChangeNotification`), with the values
    /// they had then: what an observer of that notification, or a `willSave()`, asks to see what
    /// this event changed. Core Data's `changedValuesForCurrentEvent()`: its Objective-C header
    /// gives old values, as here; a to-many's old value is its objects, a to-one's its object.
    /// A value changed and set back within the event is not listed.
    public func changedValuesForCurrentEvent() -> [String: Any?] {
        guard !faultFlag else { return [:] }
        let base = eventValues ?? committedValues
        var result: [String: Any?] = [:]
        for (index, property) in entity.properties.enumerated() where !property.isTransient {
            let kind = entityLayout.kinds[index]
            if kind == .fetched || kind == .other { continue }
            var old = base?[index] ?? .null
            let current = values[index]
            if kind == .toMany {
                // Not loaded now: not changed. Not loaded then: as saved, which loading fills in.
                guard case .toMany(.loaded(let now)) = current else { continue }
                if case .toMany(.fault) = old { old = committedValues?[index] ?? .null }
                let before: RelatedIDs
                switch old {
                case .toMany(.loaded(let ids)): before = ids
                case .null: before = []
                default: continue
                }
                if before == now { continue }
                let objects = before.map { managedObjectContext?.object(with: $0) }.compactMap { $0 }
                result[property.name] = (property as? RelationshipDescription)?.isOrdered == true ? objects as Any : Set(objects) as Any
                continue
            }
            if StoredValue.same(old, current) { continue }
            if kind == .toOne {
                result[property.name] = old.objectID.flatMap { managedObjectContext?.object(with: $0) } as Any?
            } else {
                result[property.name] = old.value
            }
        }
        return result
    }

    /// Whether any stored value differs from the last saved one. Unlike `hasChanges`, setting
    /// a value back to what was saved leaves this false.
    public var hasPersistentChangedValues: Bool {
        if insertedFlag || deletedFlag { return true }
        return !changedValues().isEmpty
    }

    /// Whether the relationship has not been loaded: a to-many whose members were not read yet,
    /// or a to-one whose object is not in memory (or is a fault). False for other names.
    public func hasFault(forRelationshipNamed name: String) -> Bool {
        guard let index = entityLayout.keys.index(of: name), let relationship = entity.properties[index] as? RelationshipDescription else { return false }
        if faultFlag { return true }
        if relationship.isToMany {
            if case .toMany(.loaded) = values[index] { return false }
            return true
        }
        guard let id = values[index].objectID else { return false }
        return managedObjectContext?.registeredObject(for: id)?.isFault ?? true
    }

    /// The values as last saved, for the given keys (all stored properties for `nil`).
    public func committedValues(forKeys keys: [String]?) -> [String: Any?] {
        if faultFlag { managedObjectContext?.fireFault(self) }
        guard let committed = committedValues else { return [:] }
        var result: [String: Any?] = [:]
        for (index, property) in entity.properties.enumerated() where !property.isTransient {
            if let keys, !keys.contains(property.name) { continue }
            if property is FetchedPropertyDescription { continue }
            result[property.name] = relationshipPublicValue(committed[index], property: property)
        }
        return result
    }

    // MARK: Hooks

    /// The value of a property: attributes in their Swift type, a to-one as the related object, a
    /// to-many as a `Set<ManagedObject>` (an array for ordered ones), a fetched property as an array
    /// of fetched objects. Unknown keys give `nil`; `validatedKey` says why.
    ///
    /// Everything that reads by key (key paths, predicates in memory, sorts done in memory, a
    /// fetched results controller's section names) reads through it. Override it to answer a key
    /// from code, where a Core Data class declares an `@objc var` that key-value coding finds
    /// (a transient `sectionIdentifier` computed from a date), and call `super` for the rest.
    open func value(forKey key: String) -> Any? {
        guard let index = entityLayout.keys.index(of: key) else { return nil }
        return value(at: index)
    }

    /// Called once when the object is first inserted; set up initial values here.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called when several of the object's values were put back at once: by an undo or redo
    /// (`.undoInsertion`, `.undoDeletion`, `.undoUpdate`), a `rollback()` (`.rollback`), a
    /// `refresh(_:mergeChanges: true)` or a merge of another context's save (`.refresh`), or a
    /// merge policy settling a conflict (`.mergePolicy`). Recompute what you derive from the
    /// values here, as in `awakeFromFetch()`.
    open func awake(fromSnapshotEvents events: SnapshotEventType) {}
    /// Called before the object is saved, while changes may still be made.
    open func willSave() {}
    /// Called after a save that included the object.
    open func didSave() {}
    /// Called when the object is about to be deleted, before its delete rules run: let go of
    /// what the object owns outside the store (a file it names) here.
    open func prepareForDeletion() {}
    /// Called before the object is turned back into a fault, while its values are still there.
    open func willTurnIntoFault() {}
    /// Called when the object is turned back into a fault and its values are dropped.
    open func didTurnIntoFault() {}
    /// Checks `value` for `key` against the model's rules (type, required, bounds, pattern, a
    /// relationship's count), throwing a `ValidationFailure` saying why not, as Core Data's
    /// `validateValue(_:forKey:)`: ask it before setting a value a user typed. Override it to add
    /// rules of your own (a save calls it for every property of a subclass's objects); a save
    /// checks the model's rules itself, so `super` then has nothing left to do.
    open func validateValue(_ value: Any?, forKey key: String) throws {
        guard !isUnderValidation else { return }
        if let failure = Validation.failures(forValue: value, key: key, of: self).first { throw failure }
    }
    /// Checks the whole object as a save of it as a new object would (the model's rules and
    /// `validateValue(_:forKey:)` for each property), throwing a `ValidationError` listing every
    /// failure. Override to check rules across properties; a save calls it for new objects.
    open func validateForInsert() throws { try validateAsSaved() }
    /// As `validateForInsert()`, for a changed saved object.
    open func validateForUpdate() throws { try validateAsSaved() }
    /// Checks that the object may be deleted (Deny rules), throwing a `ValidationError` if not.
    open func validateForDelete() throws {
        guard !isUnderValidation else { return }
        let failures = Validation.deleteFailures(of: self)
        if !failures.isEmpty { throw ValidationError(failures: failures) }
    }

    // MARK: Identity

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// What sets of objects use (a context's changes, every notification's): the address mixed
    /// with the set's seed by a multiply and shifts. Addresses need no SipHash to spread, and
    /// every object a save writes passes through several such sets.
    public func _rawHashValue(seed: Int) -> Int {
        var bits = UInt64(UInt(bitPattern: ObjectIdentifier(self))) ^ UInt64(UInt(bitPattern: seed))
        bits = (bits ^ (bits >> 32)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: bits ^ (bits >> 29))
    }

    open var description: String {
        if faultFlag { return "<\(entity.name) \(objectID) fault>" }
        let shown = entity.properties.enumerated().compactMap { index, property -> String? in
            guard property is AttributeDescription else { return nil }
            return "\(property.name)=\(values[index].value.map { "\($0)" } ?? "nil")"
        }
        return "<\(entity.name) \(objectID) \(shown.joined(separator: " "))>"
    }
}

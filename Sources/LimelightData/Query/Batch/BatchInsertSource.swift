import Foundation

/// Where a batch insert's objects come from: its array, or its handler called once per object.
/// Hands out each object's values in the entity's slots, converted and checked, one at a time,
/// so a streaming insert never holds more than the one it is writing.
struct BatchInsertSource {
    private enum Kind {
        case objects([[String: Any]])
        case dictionaries((inout [String: Any]) -> Bool)
        case managedObjects((ManagedObject) -> Bool, ManagedObject)
    }

    private let kind: Kind
    private let rows: BatchInsertRows
    /// The dictionary every call of a dictionary handler fills, emptied between calls (keeping
    /// its storage).
    private var dictionary: [String: Any] = [:]
    /// The values handed out for the last object, refilled in place for the next: the caller
    /// writes them and lets go before asking again, so no object allocates an array.
    private var values: [StoredValue] = []
    /// Set once a handler said stop, so it is not called again.
    private var finished = false

    init(_ request: BatchInsertRequest, rows: BatchInsertRows) throws {
        self.rows = rows
        if let handler = request.managedObjectHandler {
            // One object for every call, as Core Data allows (the object is not kept), of the
            // entity's registered class, so the handler can cast it and use typed setters. It
            // belongs to no context, so its setters only store the value.
            let objectClass = ManagedObjectClassRegistry.shared.objectClass(for: rows.entity)
            kind = .managedObjects(handler, objectClass.init(entity: rows.entity, insertInto: nil))
        } else if let handler = request.dictionaryHandler {
            kind = .dictionaries(handler)
        } else if let objects = request.objectsToInsert {
            kind = .objects(objects)
        } else {
            throw PersistenceError.invalidRequest("batch insert into \(rows.entity.name): no objectsToInsert, dictionaryHandler or managedObjectHandler")
        }
    }

    /// The values of object number `row`, or nil when there are no more; when `given` is not nil,
    /// the slots the object gave are appended to it (an upsert merges those).
    mutating func next(_ row: Int, given: inout [Int]?) throws -> [StoredValue]? {
        guard !finished else { return nil }
        switch kind {
        case .objects(let objects):
            guard row < objects.count else { return nil }
            try rows.fill(&values, from: objects[row], row: row, given: &given)
            return values
        case .dictionaries(let handler):
            dictionary.removeAll(keepingCapacity: true)
            // The dictionary of the call that says stop is not inserted, as in Core Data.
            if handler(&dictionary) {
                finished = true
                return nil
            }
            try rows.fill(&values, from: dictionary, row: row, given: &given)
            return values
        case .managedObjects(let handler, let object):
            rows.reset(&object.values)
            if handler(object) {
                finished = true
                return nil
            }
            try rows.check(object.values, row: row)
            if given != nil { given?.append(contentsOf: rows.givenSlots(object.values)) }
            return object.values
        }
    }
}

import Foundation
import LimelightData

/// An incremental store over a dictionary of records, written with nothing but the public
/// `IncrementalStore` API, that counts what the framework asks of it and who asks: which
/// objects' values, which relationships, which contexts, and which objects contexts say they
/// hold. Its records keep versions as Core Data counts them (1 when inserted, one more for every
/// saved change), and it keeps one node per record, brought up to date when asked again.
final class LedgerStore: IncrementalStore, @unchecked Sendable {
    static let storeType = StoreType(rawValue: "Ledger")

    struct Record {
        var entity: String
        var values: [String: Any]
        var version: UInt64 = 1
    }

    var records: [String: Record] = [:]
    /// Answer fetches with objects made in the asking context (Core Data's contract) rather than IDs.
    var answersWithObjects = false
    /// Records whose values cannot be had just now, as from a service that is down.
    var unreachable: Set<String> = []

    /// The references whose values were asked for, in order.
    private(set) var valueRequests: [String] = []
    /// "reference.relationship" for every relationship asked for, in order.
    private(set) var relationshipRequests: [String] = []
    /// Each call the framework made and the context it named.
    private(set) var askers: [(call: String, context: ObjectIdentifier?)] = []
    /// The IDs of each `managedObjectContextDidRegisterObjects` call, as references.
    private(set) var registrations: [[String]] = []
    /// The IDs of each `managedObjectContextDidUnregisterObjects` call, as references.
    private(set) var unregistrations: [[String]] = []
    /// How many contexts hold each record, as a store would count them to keep a cache.
    private(set) var holders: [String: Int] = [:]
    private var nodes: [String: IncrementalStoreNode] = [:]
    private var nextKey = 0

    override func loadMetadata() throws {
        try setMetadata(["NSStoreUUID": Self.identifierForNewStore(at: url ?? URL(fileURLWithPath: "/"))])
    }

    func reference(_ id: ManagedObjectID) -> String {
        referenceObject(for: id)?.base as? String ?? "?"
    }

    private func note(_ call: String, _ context: ManagedObjectContext?) {
        askers.append((call, context.map(ObjectIdentifier.init)))
    }

    override func execute(_ request: any PersistentStoreRequest, with context: ManagedObjectContext?) throws -> Any {
        if let fetch = request as? FetchRequest<FetchRequestResult> {
            note("fetch", context)
            guard let entity = fetch.entity else { return [ManagedObjectID]() }
            var matches: [(reference: String, record: Record)] = []
            for (reference, record) in records where record.entity == entity.name {
                if let predicate = fetch.predicate, try !predicate.evaluate(with: record.values) { continue }
                matches.append((reference, record))
            }
            matches.sort { $0.reference < $1.reference }
            if fetch.resultType == .count { return matches.count }
            let ids = matches.map { newObjectID(for: entity, referenceObject: $0.reference) }
            guard answersWithObjects, fetch.resultType == .managedObject, let context else { return ids }
            return ids.map { context.object(with: $0) }
        }
        guard let save = request as? SaveChangesRequest else { return [Any]() }
        note("save", context)
        for object in save.deletedObjects { records[reference(object.objectID)] = nil }
        for object in save.insertedObjects { records[reference(object.objectID)] = Record(entity: object.entity.name, values: values(of: object)) }
        for object in save.updatedObjects {
            let key = reference(object.objectID)
            records[key]?.values = values(of: object)
            records[key]?.version += 1
        }
        return [Any]()
    }

    private func values(of object: ManagedObject) -> [String: Any] {
        var values: [String: Any] = [:]
        for (name, property) in object.entity.propertiesByName {
            switch (property, object.value(forKey: name)) {
            case (let relationship as RelationshipDescription, let related as ManagedObject) where !relationship.isToMany:
                values[name] = reference(related.objectID)
            case (is RelationshipDescription, _): continue
            case (_, let value?): values[name] = value
            default: continue
            }
        }
        return values
    }

    override func newValuesForObject(with objectID: ManagedObjectID, with context: ManagedObjectContext?) throws -> IncrementalStoreNode {
        let key = reference(objectID)
        valueRequests.append(key)
        note("values", context)
        if unreachable.contains(key) { throw LedgerError(reason: "the ledger cannot reach \(key)") }
        guard let record = records[key] else { throw PersistenceError.objectNotFound(objectID) }
        var values: [String: Any] = [:]
        for (name, property) in objectID.entity.propertiesByName {
            if let relationship = property as? RelationshipDescription {
                // To-ones are given (NSNull for none); to-manys are left for newValue(forRelationship:…).
                guard !relationship.isToMany, let destination = relationship.destinationEntity else { continue }
                values[name] = (record.values[name] as? String).map { newObjectID(for: destination, referenceObject: $0) } ?? NSNull()
            } else if let value = record.values[name] {
                values[name] = value
            }
        }
        if let node = nodes[key] {
            node.update(withValues: values, version: record.version)
            return node
        }
        let node = IncrementalStoreNode(objectID: objectID, withValues: values, version: record.version)
        nodes[key] = node
        return node
    }

    override func newValue(forRelationship relationship: RelationshipDescription, forObjectWith objectID: ManagedObjectID,
                           with context: ManagedObjectContext?) throws -> Any? {
        let owner = reference(objectID)
        relationshipRequests.append("\(owner).\(relationship.name)")
        note("relationship", context)
        guard let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity else { return nil }
        return records.filter { $0.value.values[inverse.name] as? String == owner }.keys.sorted()
            .map { newObjectID(for: destination, referenceObject: $0) }
    }

    override func obtainPermanentIDs(for array: [ManagedObject]) throws -> [ManagedObjectID] {
        array.map { object in
            guard object.objectID.isTemporaryID else { return object.objectID }
            nextKey += 1
            return newObjectID(for: object.entity, referenceObject: "new-\(nextKey)")
        }
    }

    override func managedObjectContextDidRegisterObjects(with objectIDs: [ManagedObjectID]) {
        let keys = objectIDs.map(reference)
        registrations.append(keys)
        for key in keys { holders[key, default: 0] += 1 }
    }

    override func managedObjectContextDidUnregisterObjects(with objectIDs: [ManagedObjectID]) {
        let keys = objectIDs.map(reference)
        unregistrations.append(keys)
        for key in keys { holders[key, default: 0] -= 1 }
    }

    /// A shelf of spices: "shelf-1" with "p-1" cumin, "p-2" saffron, "p-3" vanilla.
    func stockSpices() {
        records["shelf-1"] = Record(entity: "Shelf", values: ["label": "spices"])
        for (key, name, price) in [("p-1", "cumin", 3.5), ("p-2", "saffron", 12.0), ("p-3", "vanilla", 8.25)] {
            records[key] = Record(entity: "Product", values: ["name": name, "price": price, "shelf": "shelf-1"])
        }
    }

    /// A context on a new coordinator whose one store is a stocked ledger.
    static func open(at url: URL, answersWithObjects: Bool = false) throws -> (ManagedObjectContext, LedgerStore) {
        try PersistentStoreCoordinator.registerStoreClass(LedgerStore.self, type: storeType)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: IncrementalStoreTests.model())
        guard let store = try coordinator.addPersistentStore(type: storeType, at: url) as? LedgerStore else {
            throw LedgerError(reason: "the coordinator made no LedgerStore")
        }
        store.stockSpices()
        store.answersWithObjects = answersWithObjects
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, store)
    }
}

struct LedgerError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

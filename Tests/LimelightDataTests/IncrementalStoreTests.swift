import Foundation
import Testing
import LimelightData

/// A store that answers each request from a JSON file it reads every time, written with nothing
/// but the public `IncrementalStore` API, as an application bridging to another data source would.
final class CatalogStore: IncrementalStore, @unchecked Sendable {
    static let storeType = StoreType(rawValue: "Catalog")
    /// What the coordinator asked for, in order: "fetch Product", "values sku-1", "relationship products", "save +1 ~0 -0".
    private(set) var calls: [String] = []
    var refusesSaves = false

    private var records: [String: [String: Any]] {
        get throws {
            guard let url, let data = try? Data(contentsOf: url) else { return [:] }
            let file = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return file?["records"] as? [String: [String: Any]] ?? [:]
        }
    }

    private func write(_ records: [String: [String: Any]]) throws {
        guard let url else { return }
        let file: [String: Any] = ["uuid": identifier, "records": records]
        try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]).write(to: url, options: .atomic)
    }

    override func loadMetadata() throws {
        var uuid = Self.identifierForNewStore(at: url ?? URL(fileURLWithPath: "/"))
        if let url, let data = try? Data(contentsOf: url),
           let file = try JSONSerialization.jsonObject(with: data) as? [String: Any], let stored = file["uuid"] as? String {
            uuid = stored
        }
        try setMetadata(["NSStoreUUID": uuid, "NSStoreType": Self.storeType.rawValue])
        if let url, !FileManager.default.fileExists(atPath: url.path) { try write([:]) }
    }

    override func execute(_ request: any PersistentStoreRequest, with context: ManagedObjectContext?) throws -> Any {
        if let fetch = request as? FetchRequest<FetchRequestResult> {
            calls.append("fetch \(fetch.entityName ?? "?")")
            guard let entity = persistentStoreCoordinator?.managedObjectModel.entity(named: fetch.entityName ?? "") else { return [ManagedObjectID]() }
            var matches: [(id: ManagedObjectID, record: [String: Any])] = []
            for (reference, record) in try records where record["entity"] as? String == entity.name {
                if let predicate = fetch.predicate, try !predicate.evaluate(with: record) { continue }
                matches.append((newObjectID(for: entity, referenceObject: reference), record))
            }
            for sort in (fetch.sortDescriptors ?? []).reversed() {
                matches.sort { left, right in
                    let (a, b) = ("\(left.record[sort.key] ?? "")", "\(right.record[sort.key] ?? "")")
                    return sort.ascending ? a < b : a > b
                }
            }
            if fetch.resultType == .count { return matches.count }
            return matches.map(\.id)
        }
        guard let save = request as? SaveChangesRequest else { return [ManagedObjectID]() }
        calls.append("save +\(save.insertedObjects.count) ~\(save.updatedObjects.count) -\(save.deletedObjects.count)")
        if refusesSaves { throw CatalogError(reason: "the catalog is read-only today") }
        var records = try records
        for object in save.deletedObjects { records[reference(object.objectID)] = nil }
        for object in save.insertedObjects.union(save.updatedObjects) {
            var record: [String: Any] = ["entity": object.entity.name]
            for (name, property) in object.entity.propertiesByName {
                switch (property, object.value(forKey: name)) {
                case (is RelationshipDescription, let related as ManagedObject): record[name] = reference(related.objectID)
                case (is RelationshipDescription, _): continue
                case (_, let value?): record[name] = value
                default: continue
                }
            }
            records[reference(object.objectID)] = record
        }
        try write(records)
        return [Any]()
    }

    override func newValuesForObject(with objectID: ManagedObjectID, with context: ManagedObjectContext?) throws -> IncrementalStoreNode {
        let key = reference(objectID)
        calls.append("values \(key)")
        guard let record = try records[key] else { throw CatalogError(reason: "no record \(key)") }
        var values: [String: Any] = [:]
        for (name, property) in objectID.entity.propertiesByName {
            if let relationship = property as? RelationshipDescription {
                // To-ones are given; to-manys are left for newValue(forRelationship:…).
                if !relationship.isToMany, let target = record[name] as? String, let destination = relationship.destinationEntity {
                    values[name] = newObjectID(for: destination, referenceObject: target)
                }
            } else if let value = record[name] {
                values[name] = value
            }
        }
        return IncrementalStoreNode(objectID: objectID, withValues: values, version: 1)
    }

    override func newValue(forRelationship relationship: RelationshipDescription, forObjectWith objectID: ManagedObjectID,
                           with context: ManagedObjectContext?) throws -> Any? {
        calls.append("relationship \(relationship.name)")
        let owner = reference(objectID)
        guard let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity else { return nil }
        return try records.filter { $0.value[inverse.name] as? String == owner }.keys.sorted()
            .map { newObjectID(for: destination, referenceObject: $0) }
    }

    override func obtainPermanentIDs(for array: [ManagedObject]) throws -> [ManagedObjectID] {
        array.map { object in
            object.objectID.isTemporaryID ? newObjectID(for: object.entity, referenceObject: "sku-\(UUID().uuidString.prefix(8))") : object.objectID
        }
    }

    private func reference(_ id: ManagedObjectID) -> String {
        referenceObject(for: id)?.base as? String ?? "?"
    }
}

struct CatalogError: Error {
    var reason: String
}

struct IncrementalStoreTests {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Shelf", properties: [
                AttributeDescription(name: "label", type: .string),
                RelationshipDescription(name: "products", destination: "Product", inverse: "shelf", toMany: true),
            ]),
            EntityDescription(name: "Product", properties: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "price", type: .double),
                RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "products"),
            ]),
        ])
    }

    static func open(_ url: URL) throws -> (ManagedObjectContext, CatalogStore) {
        try PersistentStoreCoordinator.registerStoreClass(CatalogStore.self, type: CatalogStore.storeType)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model())
        let store = try #require(try coordinator.addPersistentStore(type: CatalogStore.storeType, at: url) as? CatalogStore)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, store)
    }

    @Test func fetchesFaultsAndSavesGoThroughTheStoresOwnAnswers() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("catalog.json")
        let (context, store) = try Self.open(url)
        let shelf = try context.insertNewObject(forEntityName: "Shelf")
        shelf.setValue("spices", forKey: "label")
        for (name, price) in [("cumin", 3.5), ("saffron", 12.0), ("vanilla", 8.25)] {
            let product = try context.insertNewObject(forEntityName: "Product")
            product.setValue(name, forKey: "name")
            product.setValue(price, forKey: "price")
            product.setValue(shelf, forKey: "shelf")
        }
        try context.save()
        #expect(store.calls == ["save +4 ~0 -0"])
        let reference = try #require(store.referenceObject(for: shelf.objectID)?.base as? String)
        #expect(reference.hasPrefix("sku-"), "new objects are known by the references the store gave them")

        let (reader, readerStore) = try Self.open(url)
        #expect(readerStore.identifier == store.identifier)
        let request = FetchRequest<ManagedObject>(entityName: "Product", predicate: try QueryPredicate(format: "price > 5"),
                                   sortDescriptors: [QuerySortDescriptor(key: "name", ascending: false)])
        let expensive = try reader.fetch(request)
        #expect(expensive.map { $0.value(forKey: "name") as? String } == ["vanilla", "saffron"])
        #expect(readerStore.calls.first == "fetch Product")
        #expect(readerStore.calls.filter { $0.hasPrefix("values") }.count == 2)
        #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Product")) == 3)

        let readShelf = try #require(expensive.first?.value(forKey: "shelf") as? ManagedObject)
        #expect(readShelf.value(forKey: "label") as? String == "spices")
        #expect(!readerStore.calls.contains("relationship products"))
        #expect((readShelf.value(forKey: "products") as? Set<ManagedObject>)?.count == 3)
        #expect(readerStore.calls.contains("relationship products"), "a to-many the node left out is asked for when used")

        // Changes and deletions arrive as one request with the objects themselves.
        expensive[0].setValue(9.0, forKey: "price")
        reader.delete(expensive[1])
        try reader.save()
        #expect(readerStore.calls.last == "save +0 ~2 -1", "\(readerStore.calls)")
        let (after, _) = try Self.open(url)
        let prices = try after.fetch(FetchRequest<ManagedObject>(entityName: "Product", sortDescriptors: [QuerySortDescriptor(key: "name")]))
            .map { "\($0.value(forKey: "name") ?? "")=\($0.value(forKey: "price") ?? "")" }
        #expect(prices == ["cumin=3.5", "vanilla=9.0"])
    }

    @Test func aRefusedSaveKeepsTheContextsChanges() throws {
        let folder = try TemporaryFolder()
        let (context, store) = try Self.open(folder.file("catalog.json"))
        let product = try context.insertNewObject(forEntityName: "Product")
        product.setValue("mace", forKey: "name")
        store.refusesSaves = true
        #expect(throws: CatalogError.self) { try context.save() }
        #expect(product.isInserted && context.hasChanges)
        store.refusesSaves = false
        try context.save()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Product")) == 1)
    }
}

/// A store whose answers are of the wrong kind.
final class ConfusedStore: IncrementalStore, @unchecked Sendable {
    static let storeType = StoreType(rawValue: "Confused")

    override func loadMetadata() throws {
        try setMetadata(["NSStoreUUID": "C0FFEE00-0000-4000-8000-000000000000"])
    }

    override func execute(_ request: any PersistentStoreRequest, with context: ManagedObjectContext?) throws -> Any {
        "forty-two"
    }
}

/// A store that never says what its UUID is.
final class NamelessStore: IncrementalStore, @unchecked Sendable {
    override func loadMetadata() throws {}
}

struct IncrementalStoreFailureTests {
    @Test func aStoreWithoutAUUIDIsRefused() throws {
        let type = StoreType(rawValue: "Nameless")
        try PersistentStoreCoordinator.registerStoreClass(NamelessStore.self, type: type)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: IncrementalStoreTests.model())
        do {
            try coordinator.addPersistentStore(type: type, at: URL(fileURLWithPath: "/nonexistent/nameless"))
            Issue.record("a store without a UUID was added")
        } catch {
            #expect("\(error)".contains("loadMetadata() set no NSStoreUUID"), "\(error)")
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func wrongAnswersAndMissingMetadataAreNamed() throws {
        try PersistentStoreCoordinator.registerStoreClass(ConfusedStore.self, type: ConfusedStore.storeType)
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: IncrementalStoreTests.model())
        try coordinator.addPersistentStore(type: ConfusedStore.storeType, at: folder.file("confused"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        do {
            _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "Product"))
            Issue.record("a fetch answered with a string went through")
        } catch {
            #expect("\(error)".contains("execute(_:with:) answered a fetch of Product with String, not [ManagedObject] or [ManagedObjectID]"), "\(error)")
        }
        do {
            _ = try context.fetchDictionaries(FetchRequest<ManagedObject>(entityName: "Product"))
            Issue.record("a dictionary fetch answered with a string went through")
        } catch {
            #expect("\(error)".contains("answered a dictionary fetch of Product with no [[String: Any]]"), "\(error)")
        }
    }
}

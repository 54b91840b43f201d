import Foundation
import Testing
import LimelightData

/// A store format of the application's own, written with nothing but the public `AtomicStore`
/// API, as an application outside the framework would: one line per object, tab-separated,
/// objects known by UUID strings.
final class LinesStore: AtomicStore, @unchecked Sendable {
    static let storeType = StoreType(rawValue: "Lines")
    /// The references of the nodes `willRemoveCacheNodes` was told about.
    private(set) var removedReferences: [String] = []
    /// Makes the next `save()` fail, as a full disk would.
    var failsNextSave = false

    override func load() throws {
        guard let url, let model = persistentStoreCoordinator?.managedObjectModel else { return }
        guard FileManager.default.fileExists(atPath: url.path) else {
            try setMetadata(["NSStoreUUID": UUID().uuidString])
            return
        }
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first, header.count == 2, header[0] == "uuid" else {
            throw LinesStoreError(reason: "\(url.lastPathComponent) has no uuid line")
        }
        try setMetadata(["NSStoreUUID": header[1]])
        var nodes: [String: AtomicStoreCacheNode] = [:]
        for fields in lines.dropFirst() {
            guard fields.count >= 2, let entity = model.entity(named: fields[0]) else {
                throw LinesStoreError(reason: "unknown entity in line \(fields)")
            }
            nodes[fields[1]] = AtomicStoreCacheNode(objectID: objectID(for: entity, withReferenceObject: fields[1]))
        }
        for fields in lines.dropFirst() {
            guard let node = nodes[fields[1]] else { continue }
            for field in fields.dropFirst(2) {
                let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let property = node.objectID.entity.propertiesByName[parts[0]] else { continue }
                if let relationship = property as? RelationshipDescription {
                    let related = parts[1].split(separator: ",").compactMap { nodes[String($0)] }
                    let value: Any? = relationship.isToMany ? Set(related) : related.first
                    node.setValue(value, forKey: parts[0])
                } else {
                    node.setValue(parts[1], forKey: parts[0])
                }
            }
        }
        addCacheNodes(Set(nodes.values))
    }

    override func save() throws {
        if failsNextSave {
            failsNextSave = false
            throw LinesStoreError(reason: "the disk is full")
        }
        guard let url else { return }
        var text = "uuid\t\(identifier)\n"
        for node in cacheNodesInKeyOrder() {
            var fields = [node.objectID.entity.name, reference(node)]
            for (key, value) in (node.propertyCache ?? [:]).sorted(by: { $0.key < $1.key }) {
                switch value {
                case let related as AtomicStoreCacheNode: fields.append("\(key)=\(reference(related))")
                case let related as Set<AtomicStoreCacheNode>: fields.append("\(key)=\(related.map(reference).sorted().joined(separator: ","))")
                default: fields.append("\(key)=\(value)")
                }
            }
            text += fields.joined(separator: "\t") + "\n"
        }
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    override func newReferenceObject(for managedObject: ManagedObject) -> AnyHashable {
        AnyHashable(UUID().uuidString)
    }

    override func willRemoveCacheNodes(_ cacheNodes: Set<AtomicStoreCacheNode>) {
        removedReferences += cacheNodes.map(reference)
    }

    private func reference(_ node: AtomicStoreCacheNode) -> String {
        referenceObject(for: node.objectID)?.base as? String ?? "?"
    }
}

struct LinesStoreError: Error {
    var reason: String
}

struct AtomicStoreTests {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Shelf", properties: [
                AttributeDescription(name: "label", type: .string),
                RelationshipDescription(name: "jars", destination: "Jar", inverse: "shelf", toMany: true),
            ]),
            EntityDescription(name: "Jar", properties: [
                AttributeDescription(name: "spice", type: .string),
                RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "jars"),
            ]),
        ])
    }

    static func context(at url: URL) throws -> (ManagedObjectContext, LinesStore) {
        try PersistentStoreCoordinator.registerStoreClass(LinesStore.self, type: LinesStore.storeType)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model())
        let store = try coordinator.addPersistentStore(type: LinesStore.storeType, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, try #require(store as? LinesStore))
    }

    func spices(_ context: ManagedObjectContext, predicate: String = "TRUEPREDICATE") throws -> [String] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: "Jar", predicate: QueryPredicate(format: predicate),
                                       sortDescriptors: [QuerySortDescriptor(key: "spice")]))
            .map { "\($0.value(forKey: "spice") ?? "-")@\(($0.value(forKey: "shelf") as? ManagedObject)?.value(forKey: "label") ?? "-")" }
    }

    @Test func anApplicationsOwnFormatSavesFetchesAndReopens() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("pantry.lines")
        let (context, store) = try Self.context(at: url)
        #expect(store.type == LinesStore.storeType)
        let shelf = try context.insertNewObject(forEntityName: "Shelf")
        shelf.setValue("top", forKey: "label")
        for spice in ["cumin", "paprika", "anise"] {
            let jar = try context.insertNewObject(forEntityName: "Jar")
            jar.setValue(spice, forKey: "spice")
            jar.setValue(shelf, forKey: "shelf")
        }
        try context.save()
        let reference = try #require(store.referenceObject(for: shelf.objectID)?.base as? String)
        #expect(UUID(uuidString: reference) != nil, "the store's own reference objects name its objects")
        #expect(try String(contentsOf: url, encoding: .utf8).contains("Shelf\t\(reference)\t"))

        let (reopened, store2) = try Self.context(at: url)
        #expect(store2.identifier == store.identifier)
        #expect(try spices(reopened) == ["anise@top", "cumin@top", "paprika@top"])
        #expect(try spices(reopened, predicate: "spice BEGINSWITH 'c' OR shelf.label == 'none'") == ["cumin@top"])
        let top = try #require(try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
        #expect((top.value(forKey: "jars") as? Set<ManagedObject>)?.count == 3)
        #expect(store2.referenceObject(for: top.objectID)?.base as? String == reference)

        // A deletion reaches the subclass's hook and the file.
        let anise = try #require(try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Jar", predicate: QueryPredicate(format: "spice == 'anise'"))).first)
        reopened.delete(anise)
        try reopened.save()
        #expect(store2.removedReferences.count == 1)
        #expect(try spices(Self.context(at: url).0) == ["cumin@top", "paprika@top"])
    }

    @Test func aFailedWriteLeavesTheStoreAndTheContextAsTheyWere() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("pantry.lines")
        let (context, store) = try Self.context(at: url)
        let jar = try context.insertNewObject(forEntityName: "Jar")
        jar.setValue("saffron", forKey: "spice")
        try context.save()
        let saved = try String(contentsOf: url, encoding: .utf8)

        jar.setValue("sumac", forKey: "spice")
        let other = try context.insertNewObject(forEntityName: "Jar")
        other.setValue("mace", forKey: "spice")
        store.failsNextSave = true
        #expect(throws: LinesStoreError.self) { try context.save() }
        #expect(try String(contentsOf: url, encoding: .utf8) == saved)
        #expect(jar.isUpdated && other.isInserted)
        // Another context reads what the store kept: the failed save changed no node.
        let (_, _) = (context, store)
        let second = ManagedObjectContext(concurrencyType: .privateQueue)
        second.persistentStoreCoordinator = context.persistentStoreCoordinator
        #expect(try spices(second) == ["saffron@-"])

        try context.save()
        #expect(try spices(Self.context(at: url).0) == ["mace@-", "sumac@-"])
    }

    @Test func registeringIsCheckedAndUnknownTypesAreNamed() throws {
        #expect(throws: PersistenceError.self) { try PersistentStoreCoordinator.registerStoreClass(LinesStore.self, type: .sqlite) }
        #expect(PersistentStoreCoordinator.registeredStoreTypes[.xml] != nil)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        do {
            try coordinator.addPersistentStore(type: StoreType(rawValue: "Nowhere"), at: URL(fileURLWithPath: "/nonexistent/x"))
            Issue.record("an unregistered type was added")
        } catch {
            #expect("\(error)".contains("no store class is registered for store type Nowhere"))
        }
    }
}

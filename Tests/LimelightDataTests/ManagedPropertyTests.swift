import Foundation
import Synchronization
import Testing
@testable import LimelightData

/// One class for two entities whose properties stand in different orders, so each
/// declaration's property is found per entity, not once per class.
final class SharedShape: ManagedObject {
    @Managed var name: String?
    @Managed("rank") var order: Int64
    @Managed var missing: Int64
}

/// A subclass inherits the declarations and reads them through the same key paths.
final class SharedShapeChild: ManagedObject {
    @Managed var name: String?
    @Managed var extra: Double
}

/// A class whose declarations are inherited: each is found on the level that declares it.
class LayeredBase: ManagedObject {
    @Managed var first: Int64
    @Managed var second: Int64
}

final class LayeredLeaf: LayeredBase {
    @Managed var third: String?
    @Managed("first") var alias: Int64
    @Managed var fourth: Int64
}

/// Many declarations, first read by several threads at once in `firstReadsFromManyThreadsAgree`.
final class WideShape: ManagedObject {
    @Managed var p0: Int64
    @Managed var p1: Int64
    @Managed var p2: Int64
    @Managed var p3: Int64
    @Managed var p4: Int64
    @Managed var p5: Int64
    @Managed var p6: Int64
    @Managed var p7: Int64
    @Managed var p8: Int64
    @Managed var p9: Int64
    @Managed var p10: Int64
    @Managed var p11: Int64

    var all: [Int64] { [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11] }
}

/// `@Managed` properties read and write the entity's property they name, whatever the entity's
/// layout, with change tracking, and fall back to a default for a property the entity lacks.
@Suite struct ManagedPropertyTests {
    static func context() throws -> ManagedObjectContext {
        let first = EntityDescription(name: "First", properties: [
            AttributeDescription(name: "x", type: .integer64),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "rank", type: .integer64),
        ])
        first.managedObjectClassName = "SharedShape"
        let second = EntityDescription(name: "Second", properties: [
            AttributeDescription(name: "rank", type: .integer64),
            AttributeDescription(name: "name", type: .string),
        ])
        second.managedObjectClassName = "SharedShape"
        let child = EntityDescription(name: "Child", properties: [
            AttributeDescription(name: "extra", type: .double),
            AttributeDescription(name: "name", type: .string),
        ])
        child.managedObjectClassName = "SharedShapeChild"
        ManagedObjectClassRegistry.shared.register(SharedShape.self, as: "SharedShape")
        ManagedObjectClassRegistry.shared.register(SharedShapeChild.self, as: "SharedShapeChild")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [first, second, child]))
        try coordinator.addPersistentStore(type: .inMemory, at: nil)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func eachEntityGetsItsOwnPropertyWhateverItsLayout() throws {
        let context = try Self.context()
        var shapes: [SharedShape] = []
        // Alternating entities, so every access meets another layout than the one before.
        for index in 0..<6 {
            let shape = try #require(try context.insertNewObject(forEntityName: index.isMultiple(of: 2) ? "First" : "Second") as? SharedShape)
            shape.name = "shape \(index)"
            shape.order = Int64(index * 10)
            shapes.append(shape)
        }
        for (index, shape) in shapes.enumerated() {
            #expect(shape.name == "shape \(index)")
            #expect(shape.order == Int64(index * 10))
            #expect(shape.value(forKey: "name") as? String == "shape \(index)")
            #expect(shape.value(forKey: "rank") as? Int64 == Int64(index * 10))
            #expect(shape.missing == 0)
        }
        #expect(shapes[0].value(forKey: "x") == nil)
        let child = try #require(try context.insertNewObject(forEntityName: "Child") as? SharedShapeChild)
        child.name = "child"
        child.extra = 2.5
        #expect(child.value(forKey: "name") as? String == "child")
        #expect(child.extra == 2.5)
    }

    @Test func inheritedAndRenamedDeclarationsFindTheirOwnProperties() throws {
        let names = ["fourth", "third", "second", "first"]
        let entity = EntityDescription(name: "Layered", properties: names.map { name in
            AttributeDescription(name: name, type: name == "third" ? .string : .integer64)
        })
        entity.managedObjectClassName = "LayeredLeaf"
        ManagedObjectClassRegistry.shared.register(LayeredLeaf.self, as: "LayeredLeaf")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [entity]))
        try coordinator.addPersistentStore(type: .inMemory, at: nil)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let leaf = try #require(try context.insertNewObject(forEntityName: "Layered") as? LayeredLeaf)
        // Written through the leaf first, so the subclass's own declarations are looked up before
        // the inherited ones.
        leaf.fourth = 4
        leaf.third = "three"
        leaf.second = 2
        leaf.first = 1
        #expect(leaf.value(forKey: "fourth") as? Int64 == 4)
        #expect(leaf.value(forKey: "third") as? String == "three")
        #expect(leaf.value(forKey: "second") as? Int64 == 2)
        #expect(leaf.value(forKey: "first") as? Int64 == 1)
        #expect(leaf.alias == 1)
        leaf.alias = 7
        #expect(leaf.first == 7)
        // The look-up put every wrapper back as it was: a second object reads the same way.
        let other = try #require(try context.insertNewObject(forEntityName: "Layered") as? LayeredLeaf)
        other.second = 22
        #expect(other.second == 22 && other.first == 0 && other.third == nil)
    }

    @Test func writesAreTrackedAndUndoable() throws {
        let context = try Self.context()
        let shape = try #require(try context.insertNewObject(forEntityName: "Second") as? SharedShape)
        shape.order = 1
        try context.save()
        context.processPendingChanges()
        shape.order = 2
        #expect(shape.isUpdated)
        #expect(shape.changedValues()["rank"] as? Int64 == 2)
        context.undo()
        #expect(shape.order == 1)
    }

    /// Each entity learns its declarations' indices on first use while other threads read
    /// through the same table: every reader must see every property right, from the first read.
    @Test func firstReadsFromManyThreadsAgree() throws {
        let names = (0..<12).map { "p\($0)" }
        // Stored in reverse order, so an index learned wrongly (or for another entity) shows.
        let entity = EntityDescription(name: "Wide", properties: names.reversed().map { AttributeDescription(name: $0, type: .integer64) })
        entity.managedObjectClassName = "WideShape"
        ManagedObjectClassRegistry.shared.register(WideShape.self, as: "WideShape")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [entity]))
        try coordinator.addPersistentStore(type: .inMemory, at: nil)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            context.performAndWait {
                for round in 0..<50 {
                    guard let shape = try? context.insertNewObject(forEntityName: "Wide") else { continue }
                    for (index, name) in names.enumerated() { shape.setValue(Int64(worker * 1_000 + round * 20 + index), forKey: name) }
                    let expected = names.indices.map { Int64(worker * 1_000 + round * 20 + $0) }
                    guard let typed = shape as? WideShape, typed.all == expected else {
                        failures.withLock { $0.append("worker \(worker) round \(round)") }
                        continue
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
    }
}

import Foundation
import PredicateFixtures
import LimelightData

/// A small SQLite store (items, owners, tags, with accents, nils and to-manys) on which generated
/// predicates run both as SQL and in memory; the two answers must be the same.
final class FuzzStore {
    let context: ManagedObjectContext
    let items: [ManagedObject]
    let folder: URL

    init(seed: UInt64) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("limelight-predicate-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PredicateFixtureModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("fuzz.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        self.context = context
        var random = SeededGenerator(seed: seed)
        let names: [String?] = ["Crème brûlée", "crème BRÛLÉE", "Cre\u{300}me", "Éclair", "eclair", "Tarte", "TARTE", "naïve *[x]",
                                nil, "", "a?r*", "Straße", "\\", "red", "åsa"]
        let owners = try ["Ann", "Åsa", "bob", nil].map { name -> ManagedObject in
            let owner = try context.insertNewObject(forEntityName: "Owner")
            owner.setValue(name, forKey: "name")
            return owner
        }
        let tags = try ["red", "RED", "réd", "green", "blue"].enumerated().map { index, name -> ManagedObject in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(name, forKey: "name")
            if index != 4 { tag.setValue(Double(index) * 1.25, forKey: "weight") }
            return tag
        }
        for _ in 0..<200 {
            let object = try context.insertNewObject(forEntityName: "Item")
            object.setValue(random.pick(names), forKey: "name")
            if random.chance(90) { object.setValue(Int32.random(in: -5...100, using: &random), forKey: "score") }
            if random.chance(90) { object.setValue(Double(Int.random(in: 0...400, using: &random)) * 0.25, forKey: "price") }
            object.setValue(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...2_000_000, using: &random))), forKey: "created")
            object.setValue(random.chance(50), forKey: "flag")
            if random.chance(80) { object.setValue(random.pick(owners), forKey: "owner") }
            object.setValue(Set(tags.filter { _ in random.chance(35) }), forKey: "tags")
        }
        try context.save()
        items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    enum Outcome { case agreed, refusedBySQL, mismatch(String) }

    /// Runs `predicate` in SQL and in memory. SQL may refuse with a `PersistenceError`; when it
    /// answers, memory must give the same objects.
    func compare(_ predicate: QueryPredicate) -> Outcome {
        let fromSQL: Set<ManagedObjectID>
        do {
            fromSQL = Set(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate)).map(\.objectID))
        } catch let error as PersistenceError {
            // A refusal must name what SQL cannot say.
            return "\(error)".contains("cannot be said in SQL") || "\(error)".contains("type mismatch")
                ? .refusedBySQL : .mismatch("SQL refused without naming the part: \(error)")
        } catch {
            return .mismatch("SQL threw \(type(of: error)): \(error)")
        }
        do {
            let inMemory = Set(try items.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
            if inMemory == fromSQL { return .agreed }
            return .mismatch("SQL found \(fromSQL.count) objects, memory \(inMemory.count)")
        } catch {
            return .mismatch("SQL answered but memory threw: \(error)")
        }
    }
}

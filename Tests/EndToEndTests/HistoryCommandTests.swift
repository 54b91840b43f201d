import Foundation
import Testing
import LimelightData

/// `limelight history` run as a program on a store that keeps persistent history, made here by
/// the framework with a model the command reads from the store itself.
@Suite struct HistoryCommandTests {
    let harness: Harness
    let store: URL
    /// The URIs of the note edited and the note deleted.
    let edited: String, deleted: String

    init() throws {
        harness = try Harness()
        store = harness.home.appendingPathComponent("Notes.sqlite")
        let title = AttributeDescription(name: "title", type: .string)
        title.preservesValueInHistoryOnDeletion = true
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: [title, AttributeDescription(name: "body", type: .string)])])
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: store, options: [StoreOption.persistentHistoryTracking: true])
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "importer"
        (edited, deleted) = try context.performAndWait { () throws -> (String, String) in
            let first = try context.insertNewObject(forEntityName: "Note"), second = try context.insertNewObject(forEntityName: "Note")
            first.setValue("Groceries", forKey: "title")
            second.setValue("Salsa", forKey: "title")
            try context.save()
            first.setValue("tomato, onion", forKey: "body")
            try context.save()
            context.delete(second)
            try context.save()
            return (first.objectID.uriString, second.objectID.uriString)
        }
    }

    @Test func printsEachTransactionWithItsChanges() throws {
        let lines = try harness.run("limelight", ["history", store.path]).stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 7)
        #expect(lines[0].hasPrefix("#1  ") && lines[0].contains("author=importer") && lines[0].contains("program=") && lines[0].contains("pid="))
        #expect(Set(lines[1...2]) == ["    insert \(edited)", "    insert \(deleted)"])
        #expect(lines[4] == "    update \(edited) (body)")
        #expect(lines[6] == "    delete \(deleted) {title: Salsa}")
    }

    @Test func readsOnAfterANumberAsJSONAndDeletesBeforeOne() throws {
        let json = try harness.run("limelight", ["history", store.path, "--after", "1", "--json"]).stdout.split(separator: "\n")
        let transactions = try json.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(transactions.compactMap { $0["transaction"] as? Int } == [2, 3])
        #expect(transactions.allSatisfy { $0["author"] as? String == "importer" })
        let changes = transactions.compactMap { $0["changes"] as? [[String: Any]] }
        #expect(changes.map { $0.compactMap { $0["type"] as? String } } == [["update"], ["delete"]])
        #expect((changes.last?.first?["tombstone"] as? [String: String]) == ["title": "Salsa"])

        #expect(try harness.run("limelight", ["history", store.path, "--delete-before", "3"]).stdout == "deleted 2 transactions\n")
        let left = try harness.run("limelight", ["history", store.path]).stdout
        #expect(left.hasPrefix("#3  ") && !left.contains("#1  "))
    }

    @Test func aPredicateKeepsTheTransactionsItMatches() throws {
        let kept = try harness.run("limelight", ["history", store.path, "--where", "transactionNumber >= 2 AND author == 'importer'"]).stdout
        #expect(kept.hasPrefix("#2  ") && kept.contains("#3  ") && !kept.contains("#1  "))
        let none = try harness.run("limelight", ["history", store.path, "--where", "author == 'someone else'"]).stdout
        #expect(none.isEmpty)
        let bad = try harness.run("limelight", ["history", store.path, "--where", "author =="], allowFailure: true)
        #expect(bad.status != 0 && !bad.stderr.isEmpty)
    }

    @Test func aStoreWithoutHistorySaysSo() throws {
        let plain = harness.home.appendingPathComponent("Plain.sqlite")
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: [AttributeDescription(name: "title", type: .string)])])
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: plain)
        let result = try harness.run("limelight", ["history", plain.path], allowFailure: true)
        #expect(result.status != 0)
        #expect(result.stderr.contains(plain.path) && result.stderr.contains("keeps no persistent history"))
    }
}

import ArgumentParser
import Foundation
import LimelightData

extension Limelight {
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Print a store's persistent history: each save as a transaction of inserts, updates and deletes.",
            discussion: """
                Works on stores that keep history (made or opened with history tracking, by Core Data or here). \
                Each transaction prints its number, time, author, context and program, then one line per changed \
                object: its URI, for an update the properties written, for a delete the values kept after deletion. \
                --after N prints the transactions after number N, as a reader that stopped at N would catch up; \
                --where keeps the transactions a predicate matches; --delete-before N deletes the transactions before N.

                Examples:
                  limelight history Cookbook.sqlite
                  limelight history Cookbook.sqlite --after 41 --json
                  limelight history Cookbook.sqlite --where "author != 'sync'"
                """)
        @Argument(help: "The SQLite store.") var store: String
        @Option(help: "The model (as for fetch); default: the copy in the store's records folder, else the model the store keeps of itself.")
        var model: String?
        @Option(help: "Only the transactions after this number.") var after: Int64?
        @Option(name: .customLong("where"), help: "A predicate on the transactions: author, contextName, bundleID, processID, timestamp, transactionNumber.")
        var predicate: String?
        @Option(name: .customLong("delete-before"), help: "Delete the transactions before this number instead of printing.")
        var deleteBefore: Int64?
        @Flag(help: "Print JSON, one transaction per line.") var json = false

        func run() throws {
            let opened = try StoreOpener.open(store: store, model: model, readOnly: deleteBefore == nil)
            guard let storeID = opened.coordinator.persistentStores.first?.identifier else { throw CommandError("\(store): no store opened") }
            let request: PersistentHistoryChangeRequest
            if let deleteBefore {
                request = .deleteHistory(before: PersistentHistoryToken(transactionNumbers: [storeID: deleteBefore]))
                request.resultType = .count
            } else {
                request = .fetchHistory(after: after.map { PersistentHistoryToken(transactionNumbers: [storeID: $0]) })
                request.transactionPredicate = try predicate.map { try QueryPredicate(format: $0) }
            }
            let result = try opened.context.performAndWait { try opened.context.execute(request) }
            switch result {
            case .count(let deleted):
                print("deleted \(deleted) transaction\(deleted == 1 ? "" : "s")")
            case .transactions(let transactions):
                for transaction in transactions { print(json ? try Self.json(transaction) : Self.text(transaction)) }
            case .status, .changes:
                break
            }
        }

        static func text(_ transaction: PersistentHistoryTransaction) -> String {
            let time = ISO8601DateFormatter().string(from: transaction.timestamp)
            var head = "#\(transaction.transactionNumber)  \(time)"
            for (label, value) in Self.names(of: transaction) { head += "  \(label)=\(value)" }
            let lines = (transaction.changes ?? []).map { change -> String in
                var line = "    \(change.changeType.word) \(change.changedObjectID.uriString)"
                if let properties = change.updatedProperties { line += " (\(properties.map(\.name).joined(separator: ", ")))" }
                if let tombstone = change.tombstone, !tombstone.isEmpty {
                    line += " {" + tombstone.sorted { $0.key < $1.key }.map { "\($0.key): \(Self.shown($0.value))" }.joined(separator: ", ") + "}"
                }
                return line
            }
            return ([head] + lines).joined(separator: "\n")
        }

        static func json(_ transaction: PersistentHistoryTransaction) throws -> String {
            var object: [String: Any] = [
                "transaction": transaction.transactionNumber,
                "timestamp": ISO8601DateFormatter().string(from: transaction.timestamp),
            ]
            for (key, value) in Self.names(of: transaction) { object[key] = value }
            object["changes"] = (transaction.changes ?? []).map { change -> [String: Any] in
                var entry: [String: Any] = ["type": change.changeType.word, "object": change.changedObjectID.uriString]
                if let properties = change.updatedProperties { entry["properties"] = properties.map(\.name) }
                if let tombstone = change.tombstone, !tombstone.isEmpty { entry["tombstone"] = tombstone.mapValues(Self.shown) }
                return entry
            }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return String(decoding: data, as: UTF8.self)
        }

        /// Who made a transaction, as labelled in the output: those it records.
        static func names(of transaction: PersistentHistoryTransaction) -> [(String, String)] {
            [("author", transaction.author), ("context", transaction.contextName), ("program", transaction.bundleID), ("pid", transaction.processID)]
                .compactMap { label, value in value.map { (label, $0) } }
        }

        /// A kept value as text: strings as they are, others described.
        static func shown(_ value: Any) -> String {
            if let text = value as? String { return text }
            if let date = value as? Date { return ISO8601DateFormatter().string(from: date) }
            return "\(value)"
        }
    }
}

extension PersistentHistoryChangeType {
    var word: String {
        switch self {
        case .insert: return "insert"
        case .update: return "update"
        case .delete: return "delete"
        }
    }
}

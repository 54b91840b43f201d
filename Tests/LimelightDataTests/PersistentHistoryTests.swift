import Foundation
import Testing
import CSQLite
@testable import LimelightData

/// Persistent history in Core Data's tables: recorded by saves and batch requests, read back as
/// transactions and changes, trimmed, and used to catch up from another coordinator.
@Suite struct PersistentHistoryTests {
    static let tracking: [String: any Sendable] = [StoreOption.persistentHistoryTracking: true]

    /// The photo model with Person.firstName kept after deletion.
    static func model() -> ManagedObjectModel {
        let model = PhotoModel.make()
        (model.entity(named: "Person")?.ownProperties.first { $0.name == "firstName" } as? AttributeDescription)?
            .preservesValueInHistoryOnDeletion = true
        return model
    }

    static func context(_ url: URL, options: [String: any Sendable] = tracking) throws -> ManagedObjectContext {
        let context = try TestStack.context(model: model(), at: url, options: options)
        context.transactionAuthor = "importer"
        context.name = "editor"
        return context
    }

    /// Rows of a query on the store file, each as text.
    static func rows(_ sql: String, at url: URL) throws -> [[String?]] {
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        defer { connection.close() }
        var result: [[String?]] = []
        try connection.query(sql, cached: false) { row in
            result.append((0..<sqlite3_column_count(row)).map { column in
                sqlite3_column_type(row, column) == SQLITE_BLOB
                    ? Data(bytes: sqlite3_column_blob(row, column), count: Int(sqlite3_column_bytes(row, column))).map { String($0, radix: 16) }.joined()
                    : sqlite3_column_text(row, column).map { String(cString: $0) }
            })
        }
        return result
    }

    static func transactions(_ context: ManagedObjectContext, after token: PersistentHistoryToken? = nil) throws -> [PersistentHistoryTransaction] {
        guard case .transactions(let transactions) = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token)) else {
            Issue.record("no transactions returned")
            return []
        }
        return transactions
    }

    @Test func savesAreRecordedAsTransactionsOfChanges() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        let context = try Self.context(url)
        let (ada, grace) = try context.performAndWait { () throws -> (ManagedObject, ManagedObject) in
            let ada = try context.insertNewObject(forEntityName: "Person"), grace = try context.insertNewObject(forEntityName: "Person")
            ada.setValue("Ada", forKey: "firstName")
            grace.setValue("Grace", forKey: "firstName")
            try context.save()
            ada.setValue("Lovelace", forKey: "lastName")
            try context.save()
            context.delete(grace)
            try context.save()
            return (ada, grace)
        }
        let history = try context.performAndWait { try Self.transactions(context) }
        #expect(history.map(\.transactionNumber) == [1, 2, 3])
        #expect(history.allSatisfy { $0.author == "importer" && $0.contextName == "editor" })
        #expect(history.allSatisfy { $0.bundleID == ProcessInfo.processInfo.processName && $0.processID != nil })
        #expect(history[0].changes?.map(\.changeType) == [.insert, .insert])
        #expect(Set(history[0].changes?.map(\.changedObjectID) ?? []) == [ada.objectID, grace.objectID])
        #expect(history[1].changes?.map(\.changeType) == [.update])
        #expect(history[1].changes?.first?.updatedProperties?.map(\.name) == ["lastName"])
        #expect(history[2].changes?.map(\.changeType) == [.delete])
        #expect(history[2].changes?.first?.changedObjectID == grace.objectID)
        #expect(history[2].changes?.first?.tombstone?["firstName"] as? String == "Grace")
        #expect(history[2].timestamp >= history[0].timestamp)

        // Core Data's layout, column for column.
        #expect(try Self.rows("SELECT Z_ENT, ZCHANGETYPE, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, ZTOMBSTONE0 FROM ACHANGE ORDER BY Z_PK", at: url) == [
            ["16001", "0", "1", "1", nil, nil], ["16001", "0", "2", "1", nil, nil],
            // firstName, lastName, photos: lastName is the second bit from the top.
            ["16001", "1", ada.objectID.primaryKey.map { "\($0)" }, "2", "40", nil],
            ["16001", "2", grace.objectID.primaryKey.map { "\($0)" }, "3", nil, "Grace"],
        ])
        #expect(try Self.rows("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT", at: url) == [
            ["16001", "CHANGE", "4"], ["16002", "TRANSACTION", "3"], ["16003", "TRANSACTIONSTRING", "4"],
        ])
        #expect(try Self.rows("SELECT a.ZNAME, c.ZNAME FROM ATRANSACTION t JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS "
                              + "JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS WHERE t.Z_PK = 3", at: url) == [["importer", "editor"]])
    }

    @Test func aTokenReadsOnFromWhereItWasTaken() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder.file("people.sqlite"))
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            try context.save()
            let token = try #require(context.persistentStoreCoordinator).currentPersistentHistoryToken()
            #expect(try Self.transactions(context, after: token).isEmpty)
            try context.insertNewObject(forEntityName: "Person").setValue("Grace", forKey: "firstName")
            try context.save()
            let later = try Self.transactions(context, after: token)
            #expect(later.count == 1 && later.first?.changes?.count == 1)
            // A token survives being written down.
            let decoded = try JSONDecoder().decode(PersistentHistoryToken.self, from: JSONEncoder().encode(token))
            #expect(decoded == token)
            // Trimming keeps the numbers rising: a token taken before stays meaningful.
            let lastToken = try #require(later.last?.token)
            guard case .count(let deleted) = try context.execute({
                let request = PersistentHistoryChangeRequest.deleteHistory(before: lastToken)
                request.resultType = .count
                return request
            }()) else { Issue.record("no count"); return }
            #expect(deleted == 1)
            #expect(try Self.transactions(context).map(\.transactionNumber) == [2])
            try context.insertNewObject(forEntityName: "Person").setValue("Hedy", forKey: "firstName")
            try context.save()
            #expect(try Self.transactions(context, after: lastToken).map(\.transactionNumber) == [3])
        }
    }

    @Test func predicatesKeepTheTransactionsAndChangesAReaderWants() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        let context = try Self.context(url)
        let other = try Self.context(url)
        other.transactionAuthor = "app"
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            try context.insertNewObject(forEntityName: "Photo").setValue("Engine", forKey: "name")
            try context.save()
        }
        try other.performAndWait {
            try other.insertNewObject(forEntityName: "Person").setValue("Grace", forKey: "firstName")
            try other.save()
        }
        try context.performAndWait {
            // A program skips its own transactions.
            let notMine = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            notMine.transactionPredicate = try QueryPredicate(format: "author != %@", "importer")
            guard case .transactions(let theirs) = try context.execute(notMine) else { Issue.record("no transactions"); return }
            #expect(theirs.map(\.author) == ["app"])
            // Only the photos' changes, and the transactions that have some.
            let photos = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            photos.changePredicate = try QueryPredicate(format: "entityName == 'Photo' AND changeType == 0")
            guard case .transactions(let withPhotos) = try context.execute(photos) else { Issue.record("no transactions"); return }
            #expect(withPhotos.map(\.transactionNumber) == [1])
            #expect(withPhotos.first?.changes?.map(\.changedObjectID.entity.name) == ["Photo"])
            photos.resultType = .count
            #expect(try { if case .count(let count) = try context.execute(photos) { return count } else { return -1 } }() == 1)
        }
    }

    @Test func batchRequestsAreRecordedToo() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder.file("people.sqlite"))
        try context.performAndWait {
            _ = try context.execute(BatchInsertRequest(entityName: "Person", objects: [["firstName": "Ada"], ["firstName": "Grace"]]))
            let update = BatchUpdateRequest(entityName: "Person")
            update.propertiesToUpdate = ["lastName": "Unknown"]
            _ = try context.execute(update)
            let request = FetchRequest<ManagedObject>(entityName: "Person", predicate: try QueryPredicate(format: "firstName == 'Grace'"))
            _ = try context.execute(BatchDeleteRequest(fetchRequest: request))
            let history = try Self.transactions(context)
            #expect(history.map { $0.changes?.map(\.changeType) ?? [] } == [[.insert, .insert], [.update, .update], [.delete]])
            #expect(history[1].changes?.allSatisfy { $0.updatedProperties?.map(\.name) == ["lastName"] } == true)
            #expect(history[2].changes?.first?.tombstone?["firstName"] as? String == "Grace")
        }
    }

    @Test func anotherCoordinatorCatchesUpThroughTheHistory() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        let writer = try Self.context(url)
        let adaID = try writer.performAndWait { () throws -> ManagedObjectID in
            let ada = try writer.insertNewObject(forEntityName: "Person")
            ada.setValue("Ada", forKey: "firstName")
            try writer.save()
            return ada.objectID
        }
        // Another program's view of the same file, as it last saw it.
        let reader = try Self.context(url)
        let (ada, token) = try reader.performAndWait { () throws -> (ManagedObject, PersistentHistoryToken) in
            let id = try #require(reader.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: adaID.uriRepresentation()))
            let ada = try reader.existingObject(with: id)
            return (ada, try #require(reader.persistentStoreCoordinator).currentPersistentHistoryToken())
        }
        try writer.performAndWait {
            try writer.existingObject(with: adaID).setValue("Augusta", forKey: "firstName")
            try writer.insertNewObject(forEntityName: "Person").setValue("Grace", forKey: "firstName")
            try writer.save()
        }
        try reader.performAndWait {
            var inserted: [ManagedObject] = []
            reader.addObserver { event, changes in if case .objectsDidChange = event { inserted += changes.inserted } }
            for transaction in try Self.transactions(reader, after: token) {
                reader.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            }
            #expect(ada.value(forKey: "firstName") as? String == "Augusta")
            #expect(inserted.compactMap { $0.value(forKey: "firstName") as? String } == ["Grace"])
        }
    }

    @Test func migrationKeepsTheHistory() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        let old = try Self.context(url)
        try old.performAndWait {
            try old.insertNewObject(forEntityName: "Photo").setValue("Engine", forKey: "name")
            try old.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            try old.save()
        }
        // The next version adds an entity ahead of both, so every entity number moves.
        let newer = Self.model()
        newer.addEntity(EntityDescription(name: "Album", properties: [AttributeDescription(name: "title", type: .string)]))
        var options = Self.tracking
        options[StoreOption.migratePersistentStoresAutomatically] = true
        options[StoreOption.inferMappingModelAutomatically] = true
        options[StoreOption.migrationSourceModels] = [Self.model()]
        let migrated = try TestStack.context(model: newer, at: url, options: options)
        try migrated.performAndWait {
            try migrated.insertNewObject(forEntityName: "Album").setValue("Travels", forKey: "title")
            try migrated.save()
            let history = try Self.transactions(migrated)
            #expect(history.map(\.transactionNumber) == [1, 2])
            // The old changes name the same objects under the new model's entity numbers.
            #expect(history[0].changes?.map(\.changedObjectID.entity.name).sorted() == ["Person", "Photo"])
            #expect(history[1].changes?.map(\.changedObjectID.entity.name) == ["Album"])
            let people = try migrated.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            #expect(history[0].changes?.contains { $0.changedObjectID == people.first?.objectID } == true)
        }
        #expect(try Self.rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT", at: url) == [
            ["CHANGE", "3"], ["TRANSACTION", "2"], ["TRANSACTIONSTRING", "4"],
        ])
    }

    @Test func damagedHistoryTablesFailTheSaveAndLoseNothing() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        _ = try Self.context(url)
        // Something rewrote the change table without its columns.
        let connection = try SQLiteConnection(path: url.path, readOnly: false)
        try connection.execute("DROP TABLE ACHANGE")
        try connection.execute("CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY)")
        connection.close()
        let context = try Self.context(url)
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            do {
                try context.save()
                Issue.record("the save went through without its history")
            } catch let PersistenceError.store(path, reason) {
                #expect(path == url.path)
                #expect(reason.contains("nothing was written") && reason.contains("ACHANGE"))
            }
            // The object is still there to save once the table is mended; the store is as it was.
            #expect(context.insertedObjects.count == 1)
            // What history there is still reads: none.
            guard case .transactions(let transactions) = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)) else {
                Issue.record("no transactions returned")
                return
            }
            #expect(transactions.isEmpty)
        }
        #expect(try Self.rows("SELECT count(*) FROM ZPERSON", at: url) == [["0"]])
    }

    @Test func aStoreWithHistoryKeepsItAndOneWithoutSaysSo() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        let plain = try Self.context(url, options: [:])
        try plain.performAndWait {
            try plain.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            try plain.save()
            #expect(throws: PersistenceError.self) { try plain.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)) }
        }
        #expect(try Self.rows("SELECT count(*) FROM sqlite_master WHERE name LIKE 'A%'", at: url) == [["0"]])
        // Opened once with tracking, the store has history; opened later without, it still records.
        _ = try Self.context(url)
        let later = try Self.context(url, options: [:])
        try later.performAndWait {
            try later.insertNewObject(forEntityName: "Person").setValue("Grace", forKey: "firstName")
            try later.save()
            #expect(try Self.transactions(later).map { $0.changes?.count } == [1])
        }
    }

    /// Code written for Core Data reads a history request's answer through `result`, cast to
    /// what the result type asked for.
    @Test func theResultReadsAsCoreDataCastsIt() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder.file("history.sqlite"))
        for name in ["Ada", "Grace"] {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue(name, forKey: "firstName")
            try context.save()
        }
        let request = PersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)
        let transactions = try #require(try context.execute(request).result as? [PersistentHistoryTransaction])
        #expect(transactions.count == 2)
        #expect(transactions.allSatisfy { $0.author == "importer" })

        request.resultType = .changesOnly
        let changes = try #require(try context.execute(request).result as? [PersistentHistoryChange])
        #expect(changes.count == 2 && changes.allSatisfy { $0.changeType == .insert })

        request.resultType = .count
        #expect(try context.execute(request).result as? Int == 2)

        let trimmed = PersistentHistoryChangeRequest.deleteHistory(before: transactions[1])
        #expect(try context.execute(trimmed).result as? Bool == true)
        let left = try #require(try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)).result
            as? [PersistentHistoryTransaction])
        #expect(left.map(\.transactionNumber) == [transactions[1].transactionNumber])
    }
}

import Foundation
import GRDB
import LimelightData

/// Insert and fetch of plain rows of ten Integer 64 attributes: Limelight against the raw sqlite3 C
/// API and GRDB records, each in one transaction on a WAL database with SQLite's default settings.
struct StoreBench {
    let workspace: Workspace

    static let columns = (0..<10).map { "v\($0)" }

    static func model(indexed: Bool, className: String? = nil) -> ManagedObjectModel {
        let attributes = columns.enumerated().map { index, name -> AttributeDescription in
            let attribute = AttributeDescription(name: name, type: .integer64)
            attribute.isIndexedBySpotlight = indexed && index == 0
            return attribute
        }
        let entity = EntityDescription(name: "Row", properties: attributes)
        entity.managedObjectClassName = className
        return ManagedObjectModel(entities: [entity])
    }

    /// A private-queue context on a fresh coordinator; markers on when `markers` names an extension.
    static func context(_ url: URL, model: ManagedObjectModel, options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return context
    }

    func limelightInsert(_ count: Int, options: [String: any Sendable] = [:]) throws -> Double {
        let url = workspace.root.appendingPathComponent("ll-\(UUID().uuidString).sqlite")
        let context = try Self.context(url, model: Self.model(indexed: !options.isEmpty), options: options)
        let elapsed = try seconds {
            for row in 0..<count {
                let object = try context.insertNewObject(forEntityName: "Row")
                for (column, key) in Self.columns.enumerated() { object.setValue(Int64(row * 10 + column), forKey: key) }
            }
            try context.save()
        }
        if ResourceUsage.reportsUsage {
            ResourceUsage.reportBlockSize(of: try context.insertNewObject(forEntityName: "Row"), label: "an inserted ManagedObject")
        }
        return elapsed
    }

    func rawInsert(_ count: Int) throws -> Double {
        let db = try RawDatabase(workspace.root.appendingPathComponent("raw-\(UUID().uuidString).sqlite").path)
        try db.execute("PRAGMA journal_mode=WAL; CREATE TABLE R (id INTEGER PRIMARY KEY, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9)")
        return try seconds {
            try db.execute("BEGIN")
            let insert = try db.prepare("INSERT INTO R (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9) VALUES (?,?,?,?,?,?,?,?,?,?)")
            for row in 0..<count {
                for column in 0..<10 { insert.bind(Int32(column + 1), Int64(row * 10 + column)) }
                _ = insert.step()
                insert.reset()
            }
            try db.execute("COMMIT")
        }
    }

    func grdbInsert(_ count: Int) throws -> Double {
        let pool = try DatabasePool(path: workspace.root.appendingPathComponent("grdb-\(UUID().uuidString).sqlite").path)
        try pool.write { db in
            try db.create(table: GRDBInsertRow.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                for column in Self.columns { table.column(column, .integer) }
            }
        }
        return try seconds {
            try pool.write { db in
                for row in 0..<count {
                    let base = Int64(row * 10)
                    try GRDBInsertRow(id: nil, v0: base, v1: base + 1, v2: base + 2, v3: base + 3, v4: base + 4, v5: base + 5,
                                      v6: base + 6, v7: base + 7, v8: base + 8, v9: base + 9).insert(db)
                }
            }
        }
    }

    /// Insert + save, and the same rows through a batch insert: each side in turn, `repeats`
    /// times, so drift on a busy machine hits all of them.
    func insert() throws -> [Measure] {
        let count = workspace.scaled(50_000)
        var ours: [Double] = [], batch: [Double] = [], dictionaries: [Double] = [], objects: [Double] = []
        var raw: [Double] = [], grdb: [Double] = []
        for _ in 0..<workspace.repeats {
            ours.append(try limelightInsert(count))
            batch.append(try limelightBatchInsert(count))
            dictionaries.append(try limelightDictionaryHandlerInsert(count))
            objects.append(try limelightObjectHandlerInsert(count))
            raw.append(try rawInsert(count))
            grdb.append(try grdbInsert(count))
        }
        return [
            Self.againstRawAndGRDB("insert + save \(count) objects × 10 Integer 64", ours: ours, raw: raw, grdb: grdb),
            Self.againstRaw("insert \(count) objects × 10 Integer 64 with `BatchInsertRequest`", ours: batch, raw: raw, grdb: grdb),
            Self.againstRaw("insert \(count) objects × 10 Integer 64 with `BatchInsertRequest(dictionaryHandler:)`",
                            ours: dictionaries, raw: raw, grdb: grdb),
            Self.againstRaw("insert \(count) objects × 10 Integer 64 with `BatchInsertRequest(managedObjectHandler:)`, typed setters",
                            ours: objects, raw: raw, grdb: grdb),
        ]
    }

    /// Fetch every row and read all ten attributes, from one store made by Limelight: by key
    /// (`value(forKey:)`), through a subclass's typed `@Managed` properties, and as dictionaries;
    /// and fetch every row's object ID, beside raw SQLite and GRDB reading the primary keys.
    func fetch() throws -> [Measure] {
        let count = workspace.scaled(200_000)
        let url = workspace.root.appendingPathComponent("fetch.sqlite")
        do {
            let context = try Self.context(url, model: Self.model(indexed: false))
            for row in 0..<count {
                let object = try context.insertNewObject(forEntityName: "Row")
                for (column, key) in Self.columns.enumerated() { object.setValue(Int64(row &* 10 &+ column), forKey: key) }
                if row % 50_000 == 49_999 { try context.save(); context.reset() }
            }
            try context.save()
        }
        var ours: [Double] = [], typed: [Double] = [], raw: [Double] = [], grdb: [Double] = []
        var dictionaries: [Double] = [], ids: [Double] = [], rawIDs: [Double] = [], grdbIDs: [Double] = []
        var checks: Set<Int64> = [], keyChecks: Set<Int64> = []
        ManagedObjectClassRegistry.shared.register(BenchRow.self, as: "BenchRow")
        for _ in 0..<workspace.repeats {
            let context = try Self.context(url, model: Self.model(indexed: false))
            ours.append(try seconds {
                let request = FetchRequest<ManagedObject>(entityName: "Row")
                request.returnsObjectsAsFaults = false
                var sum: Int64 = 0
                for object in try context.fetch(request) {
                    for key in Self.columns { sum &+= object.value(forKey: key) as? Int64 ?? 0 }
                }
                checks.insert(sum)
            })
            let typedContext = try Self.context(url, model: Self.model(indexed: false, className: "BenchRow"))
            typed.append(try seconds {
                let request = FetchRequest<ManagedObject>(entityName: "Row")
                request.returnsObjectsAsFaults = false
                var sum: Int64 = 0
                for object in try typedContext.fetch(request) {
                    guard let row = object as? BenchRow else { throw BenchError("fetch: a Row is not a BenchRow") }
                    sum &+= row.sum
                }
                checks.insert(sum)
            })
            if ResourceUsage.reportsUsage {
                let request = FetchRequest<ManagedObject>(entityName: "Row")
                request.fetchLimit = 1
                request.returnsObjectsAsFaults = false
                if let first = try typedContext.fetch(request).first { ResourceUsage.reportBlockSize(of: first, label: "a fetched BenchRow") }
            }
            let fastContext = try Self.context(url, model: Self.model(indexed: false))
            let (dictionaryTime, dictionarySum) = try Self.limelightDictionaries(fastContext)
            dictionaries.append(dictionaryTime)
            checks.insert(dictionarySum)
            let (idTime, idSum) = try Self.limelightObjectIDs(fastContext)
            ids.append(idTime)
            keyChecks.insert(idSum)
            let db = try RawDatabase(url.path)
            let (rawIDTime, rawIDSum) = try Self.rawPrimaryKeys(db)
            rawIDs.append(rawIDTime)
            keyChecks.insert(rawIDSum)
            raw.append(try seconds {
                let select = try db.prepare("SELECT ZV0, ZV1, ZV2, ZV3, ZV4, ZV5, ZV6, ZV7, ZV8, ZV9 FROM ZROW")
                var sum: Int64 = 0
                while select.step() { for column in 0..<10 { sum &+= select.int64(Int32(column)) } }
                checks.insert(sum)
            })
            let pool = try DatabasePool(path: url.path)
            grdb.append(try seconds {
                let rows = try pool.read { db in try GRDBFetchRow.fetchAll(db) }
                checks.insert(rows.reduce(0) { $0 &+ $1.sum })
            })
            let (grdbIDTime, grdbIDSum) = try Self.grdbPrimaryKeys(pool)
            grdbIDs.append(grdbIDTime)
            keyChecks.insert(grdbIDSum)
        }
        // Every reader must have seen the same rows, or the figures compare different work.
        guard checks.count == 1 else { throw BenchError("fetch: readers disagree on the rows' sum: \(checks)") }
        let expectedKeys = Int64(count) * Int64(count + 1) / 2
        guard keyChecks == [expectedKeys] else { throw BenchError("fetch: primary keys' sums \(keyChecks), expected \(expectedKeys)") }
        return [
            Self.againstRawAndGRDB("fetch \(count) objects, read 10 attributes by key", ours: ours, raw: raw, grdb: grdb),
            Self.againstRawAndGRDB("fetch \(count) objects, read 10 `@Managed` properties", ours: typed, raw: raw, grdb: grdb),
            Self.againstRaw("fetch \(count) rows as dictionaries (10 attributes)", ours: dictionaries, raw: raw, grdb: grdb),
            Self.againstRaw("fetch \(count) object IDs (raw: `SELECT Z_PK`)", ours: ids, raw: rawIDs, grdb: grdbIDs),
        ]
    }

    /// The same 100,000-object save with marker files on and off, as two measures: until `save()`
    /// returns (the goal: markers are written by a background writer after that), and until the
    /// markers are durable (`save()` then `flushExternalRecords()`), which is the whole cost.
    func markers() throws -> [Measure] {
        let count = workspace.scaled(100_000)
        var returned: [Double] = [], durable: [Double] = [], off: [Double] = []
        for index in 0..<workspace.repeats {
            let records = try workspace.folder("markers-\(index)")
            let url = workspace.root.appendingPathComponent("ll-\(UUID().uuidString).sqlite")
            let context = try Self.context(url, model: Self.model(indexed: true), options: [
                StoreOption.externalRecordExtension: "row", StoreOption.externalRecordsDirectory: records.path,
                StoreOption.recordsRegistryDirectory: records.appendingPathComponent("registry").path,
            ])
            let start = monotonicNanoseconds()
            for row in 0..<count {
                let object = try context.insertNewObject(forEntityName: "Row")
                for (column, key) in Self.columns.enumerated() { object.setValue(Int64(row * 10 + column), forKey: key) }
            }
            try context.save()
            returned.append(Double(monotonicNanoseconds() - start) / 1e9)
            try context.persistentStoreCoordinator?.flushExternalRecords()
            durable.append(Double(monotonicNanoseconds() - start) / 1e9)
            // Measured after the writer is done, so it does not share the cores with the run.
            off.append(try limelightInsert(count))
            try? FileManager.default.removeItem(at: records)
        }
        return [
            Measure(name: "save \(count) objects until save() returns, markers on vs off", unit: "s",
                    ours: Series(label: "markers on", samples: returned), peers: [Series(label: "markers off", samples: off)],
                    goal: "≤ 1.5×") { ours, peers in peers["markers off"].map { ours <= 1.5 * $0 } },
            Measure(name: "save \(count) objects until markers are durable (save + flushExternalRecords), markers on vs off", unit: "s",
                    ours: Series(label: "markers on", samples: durable), peers: [Series(label: "markers off", samples: off)],
                    goal: "none (the files' cost, shown honestly)") { _, _ in nil },
        ]
    }

    /// A measure beside raw sqlite3 and GRDB, with the plan's goal for both store measures.
    static func againstRawAndGRDB(_ name: String, ours: [Double], raw: [Double], grdb: [Double]) -> Measure {
        Measure(name: name, unit: "s", ours: Series(label: "Limelight", samples: ours),
                peers: [Series(label: "raw sqlite3", samples: raw), Series(label: "GRDB", samples: grdb)],
                goal: "≤ 1.5× raw; faster than GRDB") { ours, peers in
            guard let raw = peers["raw sqlite3"], let grdb = peers["GRDB"] else { return nil }
            return ours <= 1.5 * raw && ours < grdb
        }
    }
}

/// The fetch measure's rows as a subclass with typed properties, as an application declares them.
final class BenchRow: ManagedObject {
    @Managed var v0: Int64
    @Managed var v1: Int64
    @Managed var v2: Int64
    @Managed var v3: Int64
    @Managed var v4: Int64
    @Managed var v5: Int64
    @Managed var v6: Int64
    @Managed var v7: Int64
    @Managed var v8: Int64
    @Managed var v9: Int64

    var sum: Int64 { v0 &+ v1 &+ v2 &+ v3 &+ v4 &+ v5 &+ v6 &+ v7 &+ v8 &+ v9 }
}

/// A GRDB record written by the insert peer.
struct GRDBInsertRow: Codable, PersistableRecord {
    static let databaseTableName = "grdb_row"
    var id: Int64?
    var v0, v1, v2, v3, v4, v5, v6, v7, v8, v9: Int64
}

/// A GRDB record read from the store Limelight wrote (its columns are Core Data's `Z`-names).
struct GRDBFetchRow: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "ZROW"
    static var databaseSelection: [any SQLSelectable] { (0..<10).map { Column("ZV\($0)") } }
    var v0, v1, v2, v3, v4, v5, v6, v7, v8, v9: Int64
    enum CodingKeys: String, CodingKey {
        case v0 = "ZV0", v1 = "ZV1", v2 = "ZV2", v3 = "ZV3", v4 = "ZV4", v5 = "ZV5", v6 = "ZV6", v7 = "ZV7", v8 = "ZV8", v9 = "ZV9"
    }
    var sum: Int64 { v0 &+ v1 &+ v2 &+ v3 &+ v4 &+ v5 &+ v6 &+ v7 &+ v8 &+ v9 }
}

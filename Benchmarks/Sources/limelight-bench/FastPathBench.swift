import Foundation
import GRDB
import LimelightData

/// Core Data's fast paths for bulk work, on the store measures' rows: a batch insert, which writes
/// rows without making objects, and fetches of dictionaries or object IDs, which register none.
/// Each is measured in turn with the managed-object measures and beside the same peer runs.
extension StoreBench {
    /// The insert measure's rows as an application hands them to a batch insert: one dictionary
    /// per object, built inside the measure as the raw and GRDB peers make their values inside it.
    func limelightBatchInsert(_ count: Int) throws -> Double {
        try batchInsert(count, into: "ll-batch") { _ in
            var objects: [[String: Any]] = []
            objects.reserveCapacity(count)
            for row in 0..<count {
                let base = Int64(row * 10)
                objects.append(["v0": base, "v1": base + 1, "v2": base + 2, "v3": base + 3, "v4": base + 4,
                                "v5": base + 5, "v6": base + 6, "v7": base + 7, "v8": base + 8, "v9": base + 9])
            }
            return BatchInsertRequest(entityName: "Row", objects: objects)
        }
    }

    /// The same rows from a dictionary handler, which fills one dictionary per call.
    func limelightDictionaryHandlerInsert(_ count: Int) throws -> Double {
        try batchInsert(count, into: "ll-batch-dictionaries") { _ in
            var row = 0
            return BatchInsertRequest(entityName: "Row", dictionaryHandler: { dictionary in
                guard row < count else { return true }
                let base = Int64(row * 10)
                dictionary["v0"] = base
                dictionary["v1"] = base + 1
                dictionary["v2"] = base + 2
                dictionary["v3"] = base + 3
                dictionary["v4"] = base + 4
                dictionary["v5"] = base + 5
                dictionary["v6"] = base + 6
                dictionary["v7"] = base + 7
                dictionary["v8"] = base + 8
                dictionary["v9"] = base + 9
                row += 1
                return false
            })
        }
    }

    /// The same rows from a managed-object handler, set through `BenchRow`'s typed properties.
    func limelightObjectHandlerInsert(_ count: Int) throws -> Double {
        ManagedObjectClassRegistry.shared.register(BenchRow.self, as: "BenchRow")
        return try batchInsert(count, into: "ll-batch-objects", className: "BenchRow") { _ in
            var row = 0
            return BatchInsertRequest(entityName: "Row", managedObjectHandler: { object in
                guard row < count, let object = object as? BenchRow else { return true }
                let base = Int64(row * 10)
                object.v0 = base
                object.v1 = base + 1
                object.v2 = base + 2
                object.v3 = base + 3
                object.v4 = base + 4
                object.v5 = base + 5
                object.v6 = base + 6
                object.v7 = base + 7
                object.v8 = base + 8
                object.v9 = base + 9
                row += 1
                return false
            })
        }
    }

    /// Runs the batch insert `makeRequest` makes, inside the measure (an application makes its
    /// rows as part of inserting them), into a new store; then reads the store back outside the
    /// measure: every row written, with the values the other inserts write.
    private func batchInsert(_ count: Int, into name: String, className: String? = nil,
                             _ makeRequest: (Int) throws -> BatchInsertRequest) throws -> Double {
        let url = workspace.root.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite")
        let context = try Self.context(url, model: Self.model(indexed: false, className: className))
        var inserted = 0
        let elapsed = try seconds {
            let request = try makeRequest(count)
            request.resultType = .count
            inserted = try context.execute(request).count
        }
        let db = try RawDatabase(url.path)
        let check = try db.prepare("SELECT count(*), total(ZV0 + ZV1 + ZV2 + ZV3 + ZV4 + ZV5 + ZV6 + ZV7 + ZV8 + ZV9) FROM ZROW")
        guard check.step() else { throw BenchError("\(name): cannot read the store back") }
        let expected = (0..<count).reduce(0.0) { sum, row in sum + Double(row * 100 + 45) }
        guard inserted == count, check.int64(0) == Int64(count), check.double(1) == expected else {
            throw BenchError("\(name): \(inserted) reported, \(check.int64(0)) rows stored, values' sum \(check.double(1)) (expected \(expected))")
        }
        return elapsed
    }

    /// Every row as a dictionary of the ten attributes (a `FetchRequest<[String: Any]>` with
    /// `propertiesToFetch`), each value read back by its key; returns the time and the values' sum.
    static func limelightDictionaries(_ context: ManagedObjectContext) throws -> (Double, Int64) {
        var sum: Int64 = 0
        let elapsed = try seconds {
            let request = FetchRequest<[String: Any]>(entityName: "Row")
            request.propertiesToFetch = columns
            for row in try context.fetch(request) {
                for key in columns { sum &+= row[key] as? Int64 ?? 0 }
            }
        }
        return (elapsed, sum)
    }

    /// Every row's object ID (a `FetchRequest<ManagedObjectID>`); returns the time and the sum of
    /// their primary keys, which the raw peer sums from `Z_PK`.
    static func limelightObjectIDs(_ context: ManagedObjectContext) throws -> (Double, Int64) {
        var sum: Int64 = 0
        let elapsed = try seconds {
            for id in try context.fetch(FetchRequest<ManagedObjectID>(entityName: "Row")) { sum &+= id.primaryKey ?? 0 }
        }
        return (elapsed, sum)
    }

    static func rawPrimaryKeys(_ db: RawDatabase) throws -> (Double, Int64) {
        var sum: Int64 = 0
        let elapsed = try seconds {
            let select = try db.prepare("SELECT Z_PK FROM ZROW")
            while select.step() { sum &+= select.int64(0) }
        }
        return (elapsed, sum)
    }

    static func grdbPrimaryKeys(_ pool: DatabasePool) throws -> (Double, Int64) {
        var sum: Int64 = 0
        let elapsed = try seconds {
            let keys = try pool.read { db in try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ZROW") }
            sum = keys.reduce(0, &+)
        }
        return (elapsed, sum)
    }

    /// A fast-path measure: the goal is raw SQLite's alone, since a fast path exists to come near it.
    static func againstRaw(_ name: String, ours: [Double], raw: [Double], grdb: [Double]) -> Measure {
        Measure(name: name, unit: "s", ours: Series(label: "Limelight", samples: ours),
                peers: [Series(label: "raw sqlite3", samples: raw), Series(label: "GRDB", samples: grdb)],
                goal: "≤ 1.5× raw") { ours, peers in peers["raw sqlite3"].map { ours <= 1.5 * $0 } }
    }
}

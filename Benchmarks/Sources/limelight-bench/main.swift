import CSQLiteBench
import Foundation
import LimelightData

// Sizes follow the benchmark plan; LIMELIGHT_BENCH_SCALE shrinks them for a quick look (e.g. 0.1).
let scale = Double(ProcessInfo.processInfo.environment["LIMELIGHT_BENCH_SCALE"] ?? "") ?? 1
let repeats = Int(ProcessInfo.processInfo.environment["LIMELIGHT_BENCH_REPEATS"] ?? "") ?? 3
let insertCount = Int(50_000 * scale), fetchCount = Int(200_000 * scale), markerCount = Int(100_000 * scale)
let work = FileManager.default.temporaryDirectory.appendingPathComponent("limelight-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }
setenv("XDG_STATE_HOME", work.appendingPathComponent("state").path, 1)

func model(indexed: Bool) -> ManagedObjectModel {
    let attributes = (0..<10).map { index -> AttributeDescription in
        let attribute = AttributeDescription(name: "v\(index)", type: .integer64)
        attribute.isIndexedBySpotlight = indexed && index == 0
        return attribute
    }
    return ManagedObjectModel(entities: [EntityDescription(name: "Row", properties: attributes)])
}

func context(_ url: URL, markers: Bool) throws -> ManagedObjectContext {
    let coordinator = try PersistentStoreCoordinator(managedObjectModel: model(indexed: true))
    try coordinator.addPersistentStore(type: .sqlite, at: url, options: markers ? [StoreOption.externalRecordExtension: "row"] : [:])
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    context.undoManager = nil
    return context
}

func limelightInsert(_ count: Int, markers: Bool) throws -> Double {
    let url = work.appendingPathComponent("ll-\(UUID().uuidString).sqlite")
    let ctx = try context(url, markers: markers)
    return try seconds {
        for row in 0..<count {
            let object = try ctx.insertNewObject(forEntityName: "Row")
            for column in 0..<10 { object.setValue(Int64(row * 10 + column), forKey: "v\(column)") }
        }
        try ctx.save()
    }
}

func rawInsert(_ count: Int, path: String) -> Double {
    var db: OpaquePointer?
    sqlite3_open(path, &db)
    defer { sqlite3_close(db) }
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE R (id INTEGER PRIMARY KEY, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9)", nil, nil, nil)
    return seconds {
        var statement: OpaquePointer?
        sqlite3_exec(db, "BEGIN", nil, nil, nil)
        sqlite3_prepare_v2(db, "INSERT INTO R (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9) VALUES (?,?,?,?,?,?,?,?,?,?)", -1, &statement, nil)
        for row in 0..<count {
            for column in 0..<10 { sqlite3_bind_int64(statement, Int32(column + 1), Int64(row * 10 + column)) }
            sqlite3_step(statement)
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
    }
}

func rawFetch(path: String, table: String, columns: String) -> Double {
    var db: OpaquePointer?
    sqlite3_open(path, &db)
    defer { sqlite3_close(db) }
    return seconds {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT \(columns) FROM \(table)", -1, &statement, nil)
        var sum: Int64 = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            for column in 0..<10 { sum &+= sqlite3_column_int64(statement, Int32(column)) }
        }
        sqlite3_finalize(statement)
        if sum == 42 { print("") }
    }
}

var measures: [Measure] = []
print("Limelight benchmarks on \(ProcessInfo.processInfo.activeProcessorCount) cores, scale \(scale), \(repeats) runs each")

var ours: [Double] = [], peer: [Double] = []
for _ in 0..<repeats {
    ours.append(try limelightInsert(insertCount, markers: false))
    peer.append(rawInsert(insertCount, path: work.appendingPathComponent("raw-\(UUID().uuidString).sqlite").path))
}
measures.append(Measure(name: "insert + save \(insertCount) objects × 10 Integer 64", unit: "s", ours: ours, peerName: "raw sqlite3",
                        peer: peer, goal: "≤ 1.5× raw", goalMet: { $0 <= 1.5 * $1 }))

// Fetch: one store of fetchCount rows, read by both.
let fetchURL = work.appendingPathComponent("fetch.sqlite")
do {
    let ctx = try context(fetchURL, markers: false)
    for row in 0..<fetchCount {
        let object = try ctx.insertNewObject(forEntityName: "Row")
        for column in 0..<10 { object.setValue(Int64(row &* 10 &+ column), forKey: "v\(column)") }
        if row % 50_000 == 49_999 { try ctx.save(); ctx.reset() }
    }
    try ctx.save()
}
ours = []; peer = []
for _ in 0..<repeats {
    let ctx = try context(fetchURL, markers: false)
    ours.append(try seconds {
        let request = FetchRequest(entityName: "Row")
        request.returnsObjectsAsFaults = false
        var sum: Int64 = 0
        for object in try ctx.fetch(request) {
            for column in 0..<10 { sum &+= object.value(forKey: "v\(column)") as? Int64 ?? 0 }
        }
        if sum == 42 { print("") }
    })
    peer.append(rawFetch(path: fetchURL.path, table: "ZROW", columns: (0..<10).map { "ZV\($0)" }.joined(separator: ", ")))
}
measures.append(Measure(name: "fetch \(fetchCount) objects, read 10 attributes", unit: "s", ours: ours, peerName: "raw sqlite3",
                        peer: peer, goal: "≤ 1.5× raw", goalMet: { $0 <= 1.5 * $1 }))

ours = []; peer = []
for _ in 0..<repeats {
    ours.append(try limelightInsert(markerCount, markers: true))
    peer.append(try limelightInsert(markerCount, markers: false))
}
measures.append(Measure(name: "save \(markerCount) objects, markers on vs off", unit: "s", ours: ours, peerName: "markers off",
                        peer: peer, goal: "≤ 1.5×", goalMet: { $0 <= 1.5 * $1 }))

print("")
print("| measure | Limelight (min–max) | peer (min–max) | ratio | goal | met |")
print("|---|---|---|---|---|---|")
for measure in measures { print(measure.row()) }
let results: [String: Any] = ["cores": ProcessInfo.processInfo.activeProcessorCount, "scale": scale, "repeats": repeats,
                              "measures": measures.map(\.json)]
let resultsURL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("results/latest.json")
try FileManager.default.createDirectory(at: resultsURL.deletingLastPathComponent(), withIntermediateDirectories: true)
try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys]).write(to: resultsURL)
print("\nresults written to \(resultsURL.path)")

import Foundation
import Testing
import LimelightData

/// `limelight fetch` and `limelight model` run as programs on a copy of a Core Data store that
/// another tool damaged: they exit with an error naming the place, never crash, and leave the
/// file as it was.
@Suite struct DamagedStoreCommandTests {
    let harness: Harness
    let store: URL

    init() throws {
        harness = try Harness()
        store = harness.home.appendingPathComponent("Cars.sqlite")
        try FileManager.default.copyItem(at: Harness.sampleModelFixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: store)
    }

    func edit(_ sql: String) throws {
        let result = try Harness.runProcess(URL(fileURLWithPath: "/usr/bin/sqlite3"), [store.path, sql], environment: nil, scratch: harness.home)
        #expect(result.status == 0, "\(result.stderr)")
    }

    func expectRefused(_ arguments: [String], naming parts: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try Data(contentsOf: store)
        let result = try harness.run("limelight", arguments, allowFailure: true)
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
        for part in parts { #expect(result.stderr.contains(part), "\(part) not in: \(result.stderr)", sourceLocation: sourceLocation) }
        #expect(try Data(contentsOf: store) == before, sourceLocation: sourceLocation)
    }

    @Test func fetchNamesAValueOfTheWrongStorageClass() throws {
        let key = try #require(try Harness.runProcess(URL(fileURLWithPath: "/usr/bin/sqlite3"), [store.path, "SELECT min(Z_PK) FROM ZCAR"],
                                                      environment: nil, scratch: harness.home).stdout.split(separator: "\n").first)
        try edit("UPDATE ZCAR SET ZMARKEDFORDELETIONASOF = 'next spring' WHERE Z_PK = \(key)")
        try expectRefused(["fetch", store.path, "--entity", "Car", "--json"],
                          naming: [store.path, "table ZCAR", "Z_PK \(key)", "column ZMARKEDFORDELETIONASOF", "TEXT 'next spring' is not a Date"])
    }

    @Test func fetchNamesARowOfNoEntity() throws {
        try edit("UPDATE ZCAR SET Z_ENT = 99 WHERE Z_PK = (SELECT max(Z_PK) FROM ZCAR)")
        try expectRefused(["fetch", store.path, "--entity", "Car"], naming: [store.path, "table ZCAR", "column Z_ENT", "INTEGER 99"])
    }

    /// The model the store keeps of itself is in Z_MODELCACHE and still prints; the store does not open.
    @Test func fetchRefusesAStoreWithoutMetadata() throws {
        try edit("DROP TABLE Z_METADATA")
        #expect(try harness.run("limelight", ["model", store.path]).stdout.contains("model OK: 4 entities"))
        try expectRefused(["fetch", store.path, "--entity", "Car"], naming: [store.path, "Z_METADATA"])
    }

    @Test func modelRefusesADamagedModelCache() throws {
        try edit("UPDATE Z_MODELCACHE SET Z_CONTENT = X'0102030405'")
        try expectRefused(["model", store.path], naming: [store.path])
    }

    @Test func fetchRefusesATruncatedStore() throws {
        let whole = try Data(contentsOf: store)
        try whole.prefix(whole.count / 2 + 100).write(to: store)
        try expectRefused(["fetch", store.path, "--entity", "Car"], naming: [store.path])
    }
}

import Foundation
import Testing

/// `limelight status STORE` run as a program on damaged stores: each prints one line naming the
/// file and what is wrong, exits 1, and leaves the store's bytes as they were.
@Suite struct StoreStatusCommandTests {
    let harness: Harness
    let folder: URL
    let store: URL

    init() throws {
        harness = try Harness()
        folder = harness.home.appendingPathComponent("stores")
        store = folder.appendingPathComponent("Cars.sqlite")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Harness.sampleModelFixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: store)
    }

    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() }

    /// Runs `status` (as `user` when given, through setpriv) and checks what a refusal must be.
    @discardableResult
    func expectRefused(naming parts: [String], asUser user: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> Harness.Result {
        let before = try Data(contentsOf: store)
        let limelight = harness.bin.appendingPathComponent("limelight")
        let result: Harness.Result
        if let user {
            result = try Harness.runProcess(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                            ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", limelight.path, "status", store.path],
                                            environment: harness.environment, scratch: harness.home)
        } else {
            result = try harness.run("limelight", ["status", store.path], allowFailure: true)
        }
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        for part in [store.path] + parts {
            #expect(result.stderr.contains(part), "\(part) not in: \(result.stderr)", sourceLocation: sourceLocation)
        }
        #expect(try Data(contentsOf: store) == before, sourceLocation: sourceLocation)
        return result
    }

    @Test func aWholeStoreIsReportedAndPasses() throws {
        let result = try harness.run("limelight", ["status", store.path])
        #expect(result.stdout.contains("objects: 145 (every row reads as the model allows)"))
        #expect(result.stdout.contains("  Car: 115"))
    }

    /// A store an application mirrors with CloudKit: the mirroring delegate's record metadata,
    /// one object waiting to upload. Status says so, and that Limelight does not sync.
    @Test func aMirroredStoreIsReportedAsMirroredAndNotSynced() throws {
        let edit = try Harness.runProcess(URL(fileURLWithPath: "/usr/bin/sqlite3"), [store.path, """
            CREATE TABLE ANSCKRECORDMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZENTITYPK INTEGER,             ZNEEDSCLOUDDELETE INTEGER, ZNEEDSUPLOAD INTEGER, ZCKRECORDNAME VARCHAR );
            CREATE TABLE ANSCKMETADATAENTRY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZKEY VARCHAR, ZINTEGERVALUE INTEGER );
            INSERT INTO ANSCKRECORDMETADATA (Z_ENT, Z_OPT, ZENTITYID, ZENTITYPK, ZNEEDSCLOUDDELETE, ZNEEDSUPLOAD, ZCKRECORDNAME)
            SELECT 17012, 1, Z_ENT, Z_PK, 0, Z_PK = 1, 'car-' || Z_PK FROM ZCAR LIMIT 3;
            """], environment: nil, scratch: harness.home)
        #expect(edit.status == 0, "\(edit.stderr)")
        let result = try harness.run("limelight", ["status", store.path])
        #expect(result.stdout.contains("CloudKit: mirrored by NSPersistentCloudKitContainer (2 mirroring tables; 3 objects tracked, 1 waiting to upload, 0 deletions waiting to send)"),
                "\(result.stdout)")
        #expect(result.stdout.contains("Limelight does not sync"))
    }

    @Test func aTruncatedStoreIsRefusedSayingHowMuchIsMissing() throws {
        let whole = try Data(contentsOf: store)
        try whole.prefix(whole.count / 2 + 100).write(to: store)
        try expectRefused(naming: ["truncated", "the file has \(whole.count / 2 + 100)"])
        // Refused before SQLite opened it: no -wal or -shm was made beside it.
        #expect(files == ["Cars.sqlite"])
    }

    @Test func aFileThatIsNotSQLiteIsRefused() throws {
        try Data("a shopping list, not a database\n".utf8).write(to: store)
        try expectRefused(naming: ["not an SQLite database"])
        #expect(files == ["Cars.sqlite"])
    }

    @Test func aValueTheModelDoesNotAllowIsNamedWhereItIs() throws {
        let edit = try Harness.runProcess(URL(fileURLWithPath: "/usr/bin/sqlite3"),
                                          [store.path, "UPDATE ZCAR SET ZMARKEDFORDELETIONASOF = 'next spring' WHERE Z_PK = 3"],
                                          environment: nil, scratch: harness.home)
        #expect(edit.status == 0, "\(edit.stderr)")
        try expectRefused(naming: ["table ZCAR", "Z_PK 3", "column ZMARKEDFORDELETIONASOF", "TEXT 'next spring' is not a Date"])
    }

    /// A store file another user owns, in a folder this user may write: it reads, but saves would
    /// fail, which is what is wrong; and the read leaves no -wal or -shm of this user's beside it,
    /// which the owner's application could not write.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func aStoreFileThisUserCannotWriteIsReported() throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.path)
        try FileManager.default.setAttributes([.ownerAccountID: 65534, .posixPermissions: 0o755], ofItemAtPath: folder.path)
        // The user must reach the folder: the scratch home is made for root.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: harness.home.path)
        let result = try expectRefused(naming: ["cannot be written by this user", "saves would fail"], asUser: 65534)
        #expect(result.stdout.contains("objects: 145"))
        #expect(files == ["Cars.sqlite"])
    }
}

import Foundation
import Testing
import LimelightData

/// `limelight fetch` run by a user who cannot write the store's folder (a store on read-only
/// media, or another user's): a WAL store reads without its `-shm`, with it reads its newest
/// changes, and with changes in a `-wal` it cannot read is refused saying so. The programs run
/// as user `nobody`, since permissions do not stop root.
@Suite(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
struct ReadOnlyStoreFolderTests {
    let harness: Harness
    let folder: URL
    let store: URL
    /// Kept open while the test copies its files, so its last save stays in the `-wal`.
    let context: ManagedObjectContext
    let source: URL

    init() throws {
        harness = try Harness()
        let fixtures = Harness.sampleModelFixtures
        source = harness.home.appendingPathComponent("writable/Cars.sqlite")
        try FileManager.default.createDirectory(at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: source)
        let model = try ManagedObjectModel(contentsOf: fixtures.appendingPathComponent("SampleModel.xcdatamodeld"))
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: source)
        context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        folder = harness.home.appendingPathComponent("readonly")
        store = folder.appendingPathComponent("Cars.sqlite")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Changes one car and saves: the change is in the source's `-wal` until it closes.
    func saveAChange() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Car")
        request.predicate = try QueryPredicate(format: "numberPlate == '170'")
        let car = try #require(try context.fetch(request).first)
        car.setValue("Changed", forKey: "maker")
        try context.save()
    }

    /// Copies the source's files with these suffixes into the folder, then makes everything read-only.
    func copy(_ suffixes: [String]) throws {
        for suffix in suffixes {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: store.path + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store.path + suffix)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
    }

    func fetchAsNobody(_ arguments: [String]) throws -> Harness.Result {
        try Harness.runProcess(URL(fileURLWithPath: "/usr/bin/setpriv"),
                               ["--reuid=65534", "--regid=65534", "--clear-groups", harness.bin.appendingPathComponent("limelight").path,
                                "fetch", store.path, "--entity", "Car"] + arguments,
                               environment: harness.environment, scratch: harness.home)
    }

    @Test func aStoreWithoutItsShmReads() throws {
        try copy([""])
        let before = try Data(contentsOf: store)
        let result = try fetchAsNobody(["--count"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "125")
        #expect(try Data(contentsOf: store) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["Cars.sqlite"])
    }

    @Test func aStoreWithItsWALAndShmReadsItsNewestChanges() throws {
        try saveAChange()
        try copy(["", "-wal", "-shm"])
        let result = try fetchAsNobody(["--where", "maker == 'Changed'", "--count"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }

    @Test func changesInAWALThatCannotBeReadAreRefusedNotSkipped() throws {
        try saveAChange()
        try copy(["", "-wal"])
        let result = try fetchAsNobody(["--count"])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stderr.contains(store.path), "\(result.stderr)")
        #expect(result.stderr.contains("newest changes are in its -wal file"), "\(result.stderr)")
    }
}

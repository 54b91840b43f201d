import Foundation
import LimelightData

/// A scratch XDG home with the built programs, for running them as a user would.
final class Harness {
    let home: URL
    /// `$XDG_RUNTIME_DIR`.
    let runtime: URL
    let bin: URL
    var environment: [String: String]
    private var daemons: [Process] = []

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    init() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("limelight-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        runtime = URL(fileURLWithPath: "/tmp/limelight-run-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The test bundle sits next to the programs in the build folder.
        bin = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        env["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        env["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        // limelightd's search socket goes here: a short path of its own, since a socket's path
        // must fit in 108 bytes, and never the user's runtime folder.
        env["XDG_RUNTIME_DIR"] = runtime.path
        env["PATH"] = bin.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["COOKBOOK_MODEL"] = Self.packageRoot.appendingPathComponent("share/limelight/models/Cookbook.xcdatamodeld").path
        environment = env
        // Importer manifests are found on $XDG_DATA_HOME, as after `make install`.
        let importers = home.appendingPathComponent("data/limelight/importers")
        try FileManager.default.createDirectory(at: importers, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.packageRoot.appendingPathComponent("share/limelight/importers/cookbook.importer"),
                                         to: importers.appendingPathComponent("cookbook.importer"))
    }

    deinit {
        // Waited for, not only killed: a daemon still finishing a write or a mkdir when the folder
        // goes would leave part of it behind.
        for daemon in daemons where daemon.isRunning {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: home)
        try? FileManager.default.removeItem(at: runtime)
    }

    /// The Core Data sample store and its model bundle, shipped with the tests.
    static var sampleModelFixtures: URL { packageRoot.appendingPathComponent("Tests/Fixtures/coredata/SampleModel") }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    var storeURL: URL { home.appendingPathComponent("data/cookbook/Cookbook.sqlite") }

    @discardableResult
    func run(_ program: String, _ arguments: [String], allowFailure: Bool = false,
             extraEnvironment: [String: String] = [:]) throws -> Result {
        let result = try Self.runProcess(bin.appendingPathComponent(program), arguments,
                                         environment: environment.merging(extraEnvironment) { $1 }, scratch: home)
        if !allowFailure && result.status != 0 {
            throw HarnessError("\(program) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result
    }

    /// Runs a program to its end and returns what it printed. Output goes to files in `scratch`,
    /// not pipes: a daemon started at the same moment by another test would inherit a pipe's
    /// write end and keep its reader waiting for EOF.
    static func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]?, scratch: URL) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let outURL = scratch.appendingPathComponent("out-\(UUID().uuidString)")
        let errURL = scratch.appendingPathComponent("err-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Where `startDaemon` writes the daemon's log.
    var daemonLog: URL { home.appendingPathComponent("limelightd.log") }

    /// Starts limelightd and waits until it reports itself running; its log goes to `daemonLog`.
    @discardableResult
    func startDaemon(extra: [String] = []) throws -> Process {
        let process = Process()
        process.executableURL = bin.appendingPathComponent("limelightd")
        process.arguments = ["--foreground"] + extra
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        if !FileManager.default.fileExists(atPath: daemonLog.path) {
            _ = FileManager.default.createFile(atPath: daemonLog.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: daemonLog)
        log.seekToEndOfFile()
        process.standardError = log
        try process.run()
        try log.close()
        daemons.append(process)
        try waitUntil("the daemon reports itself running") { (try? self.run("limelight", ["status"]))?.status == 0 }
        return process
    }

    func stop(_ daemon: Process, signal: Int32 = SIGTERM) {
        kill(daemon.processIdentifier, signal)
        daemon.waitUntilExit()
    }

    func searchCount(_ query: String) throws -> Int {
        Int(try run("limelight", ["search", "--count"] + query.split(separator: " ").map(String.init)).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The daemon's log so far.
    var daemonLogText: String { (try? String(contentsOf: daemonLog, encoding: .utf8)) ?? "" }

    /// Runs `sqlite3` on the cookbook store, as another program changing it behind the app's back.
    func sqlite(_ sql: String, at store: URL? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", (store ?? storeURL).path, sql]
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw HarnessError("sqlite3 \(sql) exited \(process.terminationStatus)") }
    }

    /// The marker files of the cookbook store, by recipe primary key.
    func markers() throws -> [Int: String] {
        let folder = storeURL.deletingLastPathComponent()
        var result: [Int: String] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder.path) where path.hasSuffix(".recipe") {
            let name = (path as NSString).lastPathComponent
            if let key = Int(name.dropLast(".recipe".count)) { result[key] = folder.appendingPathComponent(path).path }
        }
        return result
    }

    /// Polls `condition` until it holds or the deadline passes.
    func waitUntil(_ what: String, timeout: TimeInterval = 20, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(20_000)
        }
        throw HarnessError("timed out waiting until \(what)")
    }

    /// Opens the cookbook store in this process, for saving many recipes quickly.
    func openCookbook() throws -> ManagedObjectContext {
        let modelURL = URL(fileURLWithPath: environment["COOKBOOK_MODEL"] ?? "")
        let model = try ManagedObjectModel(contentsOf: modelURL)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try FileManager.default.createDirectory(at: storeURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Registration goes to the harness's own registry; the process environment is shared by
        // tests running in parallel and is left alone.
        try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: [
            StoreOption.externalRecordExtension: "recipe", StoreOption.modelSourcePath: modelURL.path,
            StoreOption.recordsRegistryDirectory: home.appendingPathComponent("state/limelight/roots").path,
        ])
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return context
    }
}

extension Harness {
    /// Registers `desktopFile` for `.recipe` markers in the harness's own XDG data folder, with the
    /// real shared-mime-info and xdg-utils tools.
    func registerHandler(desktopFile: URL) throws {
        let data = home.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data.appendingPathComponent("mime/packages"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: data.appendingPathComponent("applications"), withIntermediateDirectories: true)
        let share = Harness.packageRoot.appendingPathComponent("share")
        try FileManager.default.copyItem(at: share.appendingPathComponent("mime/packages/limelight-cookbook.xml"),
                                         to: data.appendingPathComponent("mime/packages/limelight-cookbook.xml"))
        try FileManager.default.copyItem(at: desktopFile, to: data.appendingPathComponent("applications/\(desktopFile.lastPathComponent)"))
        let mime = Process()
        mime.executableURL = URL(fileURLWithPath: "/usr/bin/update-mime-database")
        mime.arguments = [data.appendingPathComponent("mime").path]
        try mime.run()
        mime.waitUntilExit()
        let xdg = Process()
        xdg.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        xdg.arguments = ["xdg-mime", "default", desktopFile.lastPathComponent, "application/x-limelight-recipe"]
        xdg.environment = environment
        try xdg.run()
        xdg.waitUntilExit()
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

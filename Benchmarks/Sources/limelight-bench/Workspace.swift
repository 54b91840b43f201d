import Foundation

/// Where a run works and what it runs: sizes (scaled by `LIMELIGHT_BENCH_SCALE`), repeats, a scratch
/// folder that is removed afterwards, and the programs measured.
final class Workspace {
    let scale: Double
    let repeats: Int
    let root: URL
    /// Folder of Limelight's release programs (`limelight`, `limelightd`).
    let limelightBin: URL
    /// Folder of this package's programs (`xapian-peer`).
    let benchBin: URL
    let corpus = Corpus()
    /// `$XDG_RUNTIME_DIR` for the programs, where limelightd puts its search socket: the user's,
    /// else a short folder of the run's own (a socket's path must fit in 108 bytes, which the
    /// scratch folder's state folder may not).
    let runtime: URL
    private let ownsRuntime: Bool

    init() throws {
        let env = ProcessInfo.processInfo.environment
        scale = Double(env["LIMELIGHT_BENCH_SCALE"] ?? "") ?? 1
        repeats = max(1, Int(env["LIMELIGHT_BENCH_REPEATS"] ?? "") ?? 3)
        // Not /tmp by default: it is often a tmpfs (too kind) or, on a shared machine, a busy folder
        // (too harsh); the package's build folder is on the disk where a user's data would be.
        let scratch = env["LIMELIGHT_BENCH_TMP"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/scratch")
        root = scratch.appendingPathComponent("limelight-bench-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        if let runtime = env["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            self.runtime = URL(fileURLWithPath: runtime)
            ownsRuntime = false
        } else {
            runtime = URL(fileURLWithPath: "/tmp/limelight-bench-run-\(getpid())")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            ownsRuntime = true
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        benchBin = executable.deletingLastPathComponent()
        limelightBin = env["LIMELIGHT_BIN"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("../.build/release").standardizedFileURL
    }

    /// Removes the scratch folder, unless LIMELIGHT_BENCH_KEEP is set (to look at or profile what a
    /// run made).
    func remove() {
        if ownsRuntime { try? FileManager.default.removeItem(at: runtime) }
        if ProcessInfo.processInfo.environment["LIMELIGHT_BENCH_KEEP"] != nil {
            progress("kept \(root.path)")
            return
        }
        try? FileManager.default.removeItem(at: root)
    }

    /// `count` scaled, never below `floor`.
    func scaled(_ count: Int, floor: Int = 10) -> Int { max(floor, Int((Double(count) * scale).rounded())) }

    /// A fresh folder under the scratch root.
    func folder(_ name: String) throws -> URL {
        let url = root.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    var limelight: String { limelightBin.appendingPathComponent("limelight").path }
    var limelightd: String { limelightBin.appendingPathComponent("limelightd").path }
    var xapianPeer: String { benchBin.appendingPathComponent("xapian-peer").path }

    /// The environment children run with: Limelight's state (the roots registry) and data under `home`.
    func environment(home: URL) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        env["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
        env["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        env["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        env["XDG_RUNTIME_DIR"] = runtime.path
        return env
    }

    /// The full path of `program` on PATH, if it is there.
    static func which(_ program: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(program)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}

/// What a finished child process left behind.
struct ProcessOutcome {
    var status: Int32
    var output: String
    var error: String
    var seconds: Double
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs a program to its end, its output collected through files (no pipe can fill up), and times it
/// from spawn to exit. posix_spawn and waitpid directly: Foundation's `Process.waitUntilExit` polls
/// every 50 ms, which would swamp a 5 ms process.
@discardableResult
func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil, check: Bool = true) throws -> ProcessOutcome {
    let scratch = FileManager.default.temporaryDirectory
    let outPath = scratch.appendingPathComponent("bench-out-\(UUID().uuidString)").path
    let errPath = scratch.appendingPathComponent("bench-err-\(UUID().uuidString)").path
    defer {
        unlink(outPath)
        unlink(errPath)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for pointer in argv { free(pointer) }
        for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    let start = monotonicNanoseconds()
    let spawned = posix_spawn(&pid, program, &actions, nil, argv, envp)
    guard spawned == 0 else { throw BenchError("cannot start \(program): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let elapsed = Double(monotonicNanoseconds() - start) / 1e9
    // WIFEXITED / WEXITSTATUS by hand: Swift does not import the macros.
    let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    let outcome = ProcessOutcome(status: exitStatus, output: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                                 error: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "", seconds: elapsed)
    if check && outcome.status != 0 {
        throw BenchError("\(program) \(arguments.joined(separator: " ")) exited \(outcome.status): \(outcome.error.suffix(600))")
    }
    return outcome
}

/// Prints a progress line at once (stdout may be a pipe to `tee`).
func progress(_ line: String) {
    let elapsed = Double(monotonicNanoseconds() - runStart) / 1e9
    FileHandle.standardError.write(Data(String(format: "· %6.1f s  %@\n", elapsed, line).utf8))
}

/// When the run began, for the progress lines.
let runStart = monotonicNanoseconds()

import Foundation

/// A running `xapian-peer watch <db>`: told terms on its stdin, it answers each with the
/// CLOCK_MONOTONIC time at which the term first appeared in the database.
final class TermWatcher {
    private let child: Child
    private var buffer = Data()

    init(program: String, database: URL) throws {
        child = try Child(program, ["watch", database.path], pipes: true)
    }

    func watch(_ term: String) {
        let line = Array((term + "\n").utf8)
        _ = line.withUnsafeBytes { write(child.input, $0.baseAddress, $0.count) }
    }

    /// The next sighting, or nil when none came within `timeout` seconds.
    func next(timeout: Double) throws -> (term: String, nanoseconds: Int64)? {
        let deadline = monotonicNanoseconds() + Int64(timeout * 1e9)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                guard let space = line.lastIndex(of: " "), let stamp = Int64(line[line.index(after: space)...]) else {
                    throw BenchError("xapian-peer watch said: \(line)")
                }
                return (String(line[..<space]), stamp)
            }
            let left = deadline - monotonicNanoseconds()
            if left <= 0 { return nil }
            var descriptor = pollfd(fd: child.output, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, Int32(min(left / 1_000_000 + 1, 1000))) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(child.output, &chunk, chunk.count)
            if count <= 0 { throw BenchError("xapian-peer watch ended") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    func stop() { child.stop(grace: 2) }
}

/// A child process started with posix_spawn and reaped with waitpid. (Foundation's `Process` on
/// Linux was seen to miss a child's exit and wait forever.)
final class Child {
    let pid: pid_t
    /// Our ends of the child's stdin and stdout when started with pipes, else -1.
    let input: Int32
    let output: Int32
    private var exited = false

    init(_ program: String, _ arguments: [String], environment: [String: String]? = nil, log: URL? = nil, pipes: Bool = false) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        if pipes {
            guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw BenchError("pipe: \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
            posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
            for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, log?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, envp)
        if pipes {
            close(toChild[0])
            close(fromChild[1])
        }
        guard spawned == 0 else { throw BenchError("cannot start \(program): \(String(cString: strerror(spawned)))") }
        self.pid = pid
        input = toChild[1]
        output = fromChild[0]
    }

    deinit { stop(grace: 1) }

    var isRunning: Bool {
        if exited { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }

    /// SIGTERM, then SIGKILL if the program is still there after `grace` seconds.
    func stop(grace: Double) {
        if input >= 0 { close(input) }
        defer { if output >= 0 { close(output) } }
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = monotonicNanoseconds() + Int64(grace * 1e9)
        while isRunning && monotonicNanoseconds() < deadline { usleep(10_000) }
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            exited = true
        }
    }
}

/// A background program started for a measure and stopped with SIGTERM, its output kept in a file.
final class Background {
    let child: Child
    let logURL: URL

    init(_ program: String, _ arguments: [String], environment: [String: String], log: URL) throws {
        logURL = log
        child = try Child(program, arguments, environment: environment, log: log)
    }

    var pid: Int32 { child.pid }
    var isRunning: Bool { child.isRunning }
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Waits until the log contains `text`; false on timeout or exit.
    func waitForLog(_ text: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if log.contains(text) { return true }
            if !isRunning { return false }
            usleep(20_000)
        }
        return false
    }

    /// SIGTERM, and SIGKILL after `grace` seconds (recoll's monitor can take its time).
    func stop(grace: Double = 10) { child.stop(grace: grace) }
}

/// What /proc says about a process and all its threads.
enum ProcFS {
    /// Context switches of every thread: each is the process waking up (voluntary) or being preempted.
    static func contextSwitches(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var total = 0
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
                total += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            }
        }
        return total
    }

    /// Resident memory in MiB (VmRSS).
    static func residentMegabytes(_ pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first
            return kilobytes.map { $0 / 1024 }
        }
        return nil
    }

    /// User + system CPU ticks so far.
    static func cpuTicks(_ pid: Int32) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
        guard fields.count > 12 else { return 0 }
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
}

import Foundation

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

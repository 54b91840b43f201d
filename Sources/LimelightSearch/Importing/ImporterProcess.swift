import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A long-lived importer child process speaking JSON lines: a marker path per line on its stdin,
/// one `IndexRecord` per line on its stdout. A crashed or hung child is killed and restarted on the
/// next record; the record it failed on is reported, never retried forever.
///
/// The child runs in its own process group, so killing a hung importer also kills whatever it
/// started (a shell script's `sleep`, a helper), and nothing it left behind keeps its pipes open.
public final class ImporterProcess {
    public let manifest: ImporterManifest
    /// How long one record may take before the child is considered hung (the manifest's `Timeout=`).
    public var timeout: TimeInterval
    private var pid: pid_t = 0
    /// Set once the child has been reaped.
    private var exitStatus: Int32?
    private var input: Int32 = -1
    private var output: Int32 = -1
    private var buffer = Data()

    public init(manifest: ImporterManifest) {
        self.manifest = manifest
        timeout = manifest.timeout
    }

    deinit { stop() }

    /// Kills the child and its process group, and reaps it.
    public func stop() {
        if pid > 0 {
            if exitStatus == nil {
                kill(-pid, SIGKILL)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            }
            // Whatever the child started and left in its group goes too.
            kill(-pid, SIGKILL)
        }
        if input >= 0 { close(input) }
        if output >= 0 { close(output) }
        pid = 0
        exitStatus = nil
        input = -1
        output = -1
        buffer = Data()
    }

    private var isRunning: Bool {
        guard pid > 0 else { return false }
        if exitStatus != nil { return false }
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        guard reaped == pid else { return reaped == 0 }
        exitStatus = Self.describe(status)
        return false
    }

    /// The exit code, or 128 + signal for a child killed by a signal (as shells report it).
    private static func describe(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private func start() throws {
        guard let executable = manifest.resolvedExecutable() else {
            throw ExternalImporterError(importer: manifest.name, reason: "program '\(manifest.executable)' not found")
        }
        // A child that dies while being written to must give an error here, not end this process.
        signal(SIGPIPE, SIG_IGN)
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw spawnError("pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&fromChild) == 0 else {
            toChild.forEach { close($0) }
            throw spawnError("pipe: \(String(cString: strerror(errno)))")
        }
        // Our ends must not leak into other children (the next importer would hold this one's stdin).
        for descriptor in toChild + fromChild { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        sigemptyset(&empty)
        for number in [SIGPIPE, SIGINT, SIGTERM] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + manifest.arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        var result = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        // ETXTBSY: a process forked elsewhere at the moment the program was written still holds it
        // open for writing; that passes in a moment.
        for _ in 0..<20 where result == ETXTBSY {
            usleep(25_000)
            result = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        }
        close(toChild[0])
        close(fromChild[1])
        guard result == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw spawnError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
        exitStatus = nil
        input = toChild[1]
        output = fromChild[0]
        buffer = Data()
    }

    private func spawnError(_ reason: String) -> ExternalImporterError {
        ExternalImporterError(importer: manifest.name, reason: reason)
    }

    /// Imports one marker through the child, starting it if needed.
    public func importRecord(markerPath: String) throws -> IndexRecord {
        if !isRunning { stop(); try start() }
        guard writeLine(markerPath) else {
            stop()
            throw ExternalImporterError(importer: manifest.name, reason: "exited before taking \(markerPath); restarted")
        }
        let line: Data
        switch readLine(deadline: Date().addingTimeInterval(timeout)) {
        case .line(let data):
            line = data
        case .endOfFile:
            // A child that closed its output but lingers is killed rather than waited for.
            let status = exitCode(within: 2).map { "exited with status \($0)" } ?? "closed its output"
            stop()
            throw ExternalImporterError(importer: manifest.name, reason: "\(status) on \(markerPath); restarted")
        case .timedOut:
            stop()
            throw ExternalImporterError(importer: manifest.name, reason: "hung for \(String(format: "%g", timeout)) s on \(markerPath); killed and restarted")
        }
        var record: IndexRecord
        do {
            record = try JSONDecoder().decode(IndexRecord.self, from: line)
        } catch {
            throw ExternalImporterError(importer: manifest.name, reason: "answered with a line that is not an index record: \(error)")
        }
        if record.marker.isEmpty { record.marker = markerPath }
        // An answer about another marker means the program and the daemon are out of step (it
        // wrote two lines for one record): every later answer would belong to the wrong record.
        guard record.marker == markerPath else {
            stop()
            throw ExternalImporterError(importer: manifest.name, reason: "answered for \(record.marker) when asked for \(markerPath); restarted")
        }
        return record
    }

    /// The child's exit status if it exits within `seconds`.
    private func exitCode(within seconds: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning && Date() < deadline { usleep(5_000) }
        return exitStatus
    }

    /// Writes `line` and a newline to the child's stdin; false when the child is gone.
    private func writeLine(_ line: String) -> Bool {
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(written)
        }
        return true
    }

    private enum ReadResult { case line(Data), endOfFile, timedOut }

    private func readLine(deadline: Date) -> ReadResult {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                return .line(Data(line))
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return .timedOut }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining, 3600) * 1000))
            if ready < 0 { if errno == EINTR { continue }; return .endOfFile }
            if ready == 0 { return .timedOut }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(output, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return .endOfFile }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}

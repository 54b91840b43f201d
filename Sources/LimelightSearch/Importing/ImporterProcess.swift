import Foundation
import Logging

/// A long-lived importer child process speaking JSON lines: a marker path per line on its stdin,
/// one `IndexRecord` per line on its stdout. A crashed or hung child is killed and restarted on the
/// next record; the record it failed on is reported, never retried forever.
public final class ImporterProcess {
    public let manifest: ImporterManifest
    /// How long one record may take before the child is considered hung (the manifest's `Timeout=`).
    public var timeout: TimeInterval
    private var process: Process?
    private var input: FileHandle?
    private var output: Int32 = -1
    private var buffer = Data()
    private let logger = Logger(label: "limelight.importer")

    public init(manifest: ImporterManifest) {
        self.manifest = manifest
        timeout = manifest.timeout
    }

    deinit { stop() }

    public func stop() {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? input?.close()
        if output >= 0 { close(output) }
        process = nil
        input = nil
        output = -1
        buffer = Data()
    }

    private func start() throws {
        guard let executable = manifest.resolvedExecutable() else {
            throw ExternalImporterError(importer: manifest.name, reason: "program '\(manifest.executable)' not found")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = manifest.arguments
        let stdinPipe = Pipe(), stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw ExternalImporterError(importer: manifest.name, reason: "cannot start \(executable): \(error)")
        }
        self.process = process
        input = stdinPipe.fileHandleForWriting
        output = dup(stdoutPipe.fileHandleForReading.fileDescriptor)
        try? stdoutPipe.fileHandleForReading.close()
        buffer = Data()
    }

    /// Imports one marker through the child, starting it if needed.
    public func importRecord(markerPath: String) throws -> IndexRecord {
        if process?.isRunning != true { stop(); try start() }
        guard let input else { throw ExternalImporterError(importer: manifest.name, reason: "not running") }
        do {
            try input.write(contentsOf: Data((markerPath + "\n").utf8))
        } catch {
            stop()
            throw ExternalImporterError(importer: manifest.name, reason: "exited before taking \(markerPath)")
        }
        let line: Data
        switch readLine(deadline: Date().addingTimeInterval(timeout)) {
        case .line(let data):
            line = data
        case .endOfFile:
            // A child that closed its output but lingers is killed rather than waited for.
            let status = exitStatus(within: 2).map { "exited with status \($0)" } ?? "closed its output"
            stop()
            throw ExternalImporterError(importer: manifest.name, reason: "\(status) on \(markerPath); restarted")
        case .timedOut:
            stop()
            throw ExternalImporterError(importer: manifest.name, reason: "hung for \(String(format: "%g", timeout)) s on \(markerPath); killed and restarted")
        }
        do {
            var record = try JSONDecoder().decode(IndexRecord.self, from: line)
            if record.marker.isEmpty { record.marker = markerPath }
            return record
        } catch {
            throw ExternalImporterError(importer: manifest.name, reason: "answered with a line that is not an index record: \(error)")
        }
    }

    /// The child's exit status if it exits within `seconds`.
    private func exitStatus(within seconds: TimeInterval) -> Int32? {
        guard let process else { return nil }
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        return process.isRunning ? nil : process.terminationStatus
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

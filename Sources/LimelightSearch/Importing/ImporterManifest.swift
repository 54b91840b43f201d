import Foundation
import LimelightData

/// An importer program registered for marker extensions by a manifest file
/// (`share/limelight/importers/<name>.importer`, searched on `$XDG_DATA_HOME` and `$XDG_DATA_DIRS`):
///
/// ```
/// [Importer]
/// Name=Cookbook
/// Extensions=recipe
/// Exec=cookbook-importer
/// Timeout=10
/// ```
///
/// `Exec` is a program name (looked up next to `limelightd`, then on `PATH`) or an absolute path.
/// `Timeout` (optional, seconds, default 10) is how long one record may take before the program
/// is considered hung, killed and restarted.
public struct ImporterManifest: Sendable, Equatable {
    public var name: String
    public var extensions: [String]
    public var executable: String
    public var arguments: [String]
    public var manifestPath: String
    /// Seconds one record may take.
    public var timeout: TimeInterval = ImporterManifest.defaultTimeout

    public static let defaultTimeout: TimeInterval = 10

    public static func parse(_ text: String, path: String) throws -> ImporterManifest {
        var fields: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("[") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ExternalImporterError(importer: path, reason: "line '\(line)' is not Key=Value")
            }
            fields[line[..<equals].trimmingCharacters(in: .whitespaces)] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let exec = fields["Exec"], !exec.isEmpty else { throw ExternalImporterError(importer: path, reason: "no Exec= line") }
        let extensions = (fields["Extensions"] ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !extensions.isEmpty else { throw ExternalImporterError(importer: path, reason: "no Extensions= line") }
        var timeout = defaultTimeout
        if let text = fields["Timeout"] {
            guard let seconds = TimeInterval(text), seconds > 0, seconds.isFinite else {
                throw ExternalImporterError(importer: path, reason: "Timeout=\(text) is not a positive number of seconds")
            }
            timeout = seconds
        }
        let words = exec.split(separator: " ").map(String.init)
        return ImporterManifest(name: fields["Name"] ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent,
                                extensions: extensions, executable: words[0], arguments: Array(words.dropFirst()), manifestPath: path,
                                timeout: timeout)
    }

    /// Folders searched for manifests, most important first.
    public static func searchDirectories() -> [URL] {
        let home = XDGDirectories.dataHome
        let dirs = XDGDirectories.dataDirectories
        let besideProgram = programDirectory.appendingPathComponent("../share")
        return ([home] + [besideProgram] + dirs).map { $0.appendingPathComponent("limelight/importers").standardizedFileURL }
    }

    static var programDirectory: URL {
        // The running program's real location, whatever PATH or symlink started it.
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// Every manifest found, by extension (the first found wins).
    public static func discover(in directories: [URL] = searchDirectories()) -> (byExtension: [String: ImporterManifest], problems: [String]) {
        var result: [String: ImporterManifest] = [:]
        var problems: [String] = []
        for directory in directories {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            for name in names.sorted() where name.hasSuffix(".importer") {
                let path = directory.appendingPathComponent(name).path
                do {
                    let manifest = try parse(try String(contentsOfFile: path, encoding: .utf8), path: path)
                    for ext in manifest.extensions where result[ext] == nil { result[ext] = manifest }
                } catch {
                    problems.append("\(error)")
                }
            }
        }
        return (result, problems)
    }

    /// The program to run: absolute, next to this program, or on PATH.
    func resolvedExecutable() -> String? {
        if executable.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: executable) ? executable : nil }
        let beside = Self.programDirectory.appendingPathComponent(executable).path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        for dir in (XDGDirectories.variable("PATH") ?? "").split(separator: ":") {
            let candidate = "\(dir)/\(executable)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// An importer program failed: it could not start, crashed, hung, or answered nonsense.
public struct ExternalImporterError: Error, CustomStringConvertible {
    public var importer: String
    public var reason: String
    public var description: String { "importer \(importer): \(reason)" }
}

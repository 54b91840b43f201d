import Foundation
import LimelightData

/// The application XDG says opens a file: MIME type from the shared-mime-info glob tables, default
/// application from `xdg-mime query default`, command from the desktop file's `Exec=`.
public struct DesktopHandler: Sendable {
    /// The desktop file's full path.
    public let desktopFile: String
    public let exec: DesktopEntryExec
    /// The desktop file's `Icon=`: an icon name of the theme, or an absolute path; `nil` without one.
    public let icon: String?

    /// `$XDG_DATA_HOME` first, then `$XDG_DATA_DIRS`: where MIME tables and desktop files are looked up.
    public static var dataDirectories: [String] {
        ([XDGDirectories.dataHome] + XDGDirectories.dataDirectories).map(\.path)
    }

    /// The MIME type shared-mime-info gives the file's name, from `mime/globs2`.
    public static func mimeType(forFile path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        var best: (weight: Int, type: String)?
        for dir in dataDirectories {
            guard let text = try? String(contentsOfFile: dir + "/mime/globs2", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let parts = line.split(separator: ":", maxSplits: 2).map(String.init)
                guard parts.count == 3, let weight = Int(parts[0]), fnmatch(parts[2], name, 0) == 0 else { continue }
                if weight > best?.weight ?? Int.min { best = (weight, parts[1]) }
            }
            if best != nil { break }
        }
        return best?.type
    }

    /// The application registered for the file's type; `nil` when the type or its default
    /// application is unknown. Throws when the registered desktop file has no usable `Exec=`.
    public static func find(forFile path: String) throws -> DesktopHandler? {
        guard let type = mimeType(forFile: path) else { return nil }
        guard let desktop = run(["xdg-mime", "query", "default", type])?.trimmingCharacters(in: .whitespacesAndNewlines),
              !desktop.isEmpty else { return nil }
        for dir in dataDirectories {
            let file = dir + "/applications/" + desktop
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            guard let exec = DesktopEntryExec(desktopFileText: text) else {
                throw DesktopEntryError(file: file, reason: "no usable Exec= in its [Desktop Entry] group")
            }
            let icon = DesktopEntry(text: text).value(forKey: "Icon").flatMap { $0.isEmpty ? nil : $0 }
            return DesktopHandler(desktopFile: file, exec: exec, icon: icon)
        }
        return nil
    }

    /// Starts the application on `file` and returns its process, still running.
    public func start(file: String) throws -> Process {
        let arguments = exec.command(for: file)
        guard let program = arguments.first else { throw DesktopEntryError(file: desktopFile, reason: "empty Exec=") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments.dropFirst()
        try process.run()
        return process
    }

    /// Runs the application on `file` to its end; its exit status.
    public func run(file: String) throws -> Int32 {
        let process = try start(file: file)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A command's standard output when it exits with status 0.
    static func run(_ command: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}

/// A desktop file that cannot be used to start its application.
public struct DesktopEntryError: Error, CustomStringConvertible {
    public var file: String
    public var reason: String
    public var description: String { "\(file): \(reason)" }
}

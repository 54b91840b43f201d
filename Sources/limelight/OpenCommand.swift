import ArgumentParser
import Foundation
import LimelightData
import LimelightSearch

extension Limelight {
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Open a record by its marker file with the application registered for its type.",
            discussion: "The type comes from shared-mime-info globs (application/x-limelight-<ext> for *.<ext>); the application from xdg-mime's default for it. With no application, or --print, the record is printed.")
        @Argument(help: "Path of a marker file.") var marker: String
        @Flag(help: "Print the record instead of opening it.") var print = false

        func run() throws {
            let reader = try ExternalRecordReader(markerPath: marker)
            if !print, let handler = try DesktopHandler.find(forFile: reader.elements.markerURL.path) {
                FileHandle.standardError.write(Data("opening with \(handler.desktopFile)\n".utf8))
                let status = try handler.run(file: reader.elements.markerURL.path)
                if status != 0 { throw ExitCode(status) }
                return
            }
            let object = try reader.object()
            Swift.print("\(reader.elements.entityName) \(reader.elements.objectURI.absoluteString)")
            Swift.print(ObjectPrinter.text(ObjectPrinter.values(of: object)))
        }
    }
}

/// The application XDG says opens a file: MIME type from the shared-mime-info glob tables, default
/// application from `xdg-mime query default`, command from the desktop file's `Exec=`.
struct DesktopHandler {
    let desktopFile: String
    let exec: DesktopEntryExec

    static var dataDirectories: [String] {
        ([XDGDirectories.dataHome] + XDGDirectories.dataDirectories).map(\.path)
    }

    /// The MIME type shared-mime-info gives the file's name, from `mime/globs2`.
    static func mimeType(forFile path: String) -> String? {
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

    static func find(forFile path: String) throws -> DesktopHandler? {
        guard let type = mimeType(forFile: path) else { return nil }
        guard let desktop = run(["xdg-mime", "query", "default", type])?.trimmingCharacters(in: .whitespacesAndNewlines),
              !desktop.isEmpty else { return nil }
        for dir in dataDirectories {
            let file = dir + "/applications/" + desktop
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            guard let exec = DesktopEntryExec(desktopFileText: text) else {
                throw CommandError("\(file): no usable Exec= in its [Desktop Entry] group")
            }
            return DesktopHandler(desktopFile: file, exec: exec)
        }
        return nil
    }

    func run(file: String) throws -> Int32 {
        let arguments = exec.command(for: file)
        guard let program = arguments.first else { throw CommandError("\(desktopFile): empty Exec=") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments.dropFirst()
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

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

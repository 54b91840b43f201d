import ArgumentParser
import Foundation
import LimelightData
import LimelightSearch

// Every command spells out its `commandName`: left out, ArgumentParser derives it from the type's
// name with `String(describing:)`, whose runtime protocol lookups scan every conformance record of
// every loaded library, once per subcommand, on every start.
@main
struct Limelight: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limelight",
        abstract: "Search, open and inspect Core Data-style stores and their indexed records.",
        subcommands: [Search.self, Open.self, Record.self, Status.self, Index.self, Markers.self, Fetch.self, Model.self, Migrate.self,
                      History.self])

    /// `limelight search` in its plain forms runs without ArgumentParser (see
    /// `SearchInvocation.plainArguments`); every other command line, help and completion scripts
    /// included, is ArgumentParser's.
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == Search.configuration.commandName,
           let invocation = SearchInvocation.plainArguments(arguments.dropFirst()) {
            do {
                try invocation.run()
            } catch {
                exit(withError: error)
            }
            return
        }
        main(nil)
    }
}

/// Errors the command line reports as one clear line, with exit status 1.
struct CommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Where the index lives unless `--index` says otherwise: `$XDG_DATA_HOME/limelight/index`.
func defaultIndexPath() -> String {
    ExternalRecordsRegistryPaths.defaultIndexPath
}

/// Prints a JSON value on one line.
func printJSON(_ value: Any) throws {
    print(try JSONLine.text(value))
}

/// Text written to standard output or error as it is: `print` would first ask the runtime what
/// the value conforms to. Callers flush what they printed before (`fflush`).
enum StandardStreams {
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let count = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += count
            }
        }
    }
}

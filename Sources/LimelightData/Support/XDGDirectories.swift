import Foundation

/// The XDG base directories, as the freedesktop.org specification defines them: a variable that
/// is unset, empty or not an absolute path means its default.
///
/// Variables are read one by one with `getenv`: `ProcessInfo.environment` builds a dictionary of
/// the whole environment on every call, which was an eighth of a `limelight search`.
package enum XDGDirectories {
    /// The variable's value; `nil` when it is unset or empty.
    package static func variable(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// `$XDG_DATA_HOME`, by default `~/.local/share`.
    package static var dataHome: URL { URL(fileURLWithPath: dataHomePath, isDirectory: true) }

    /// `$XDG_STATE_HOME`, by default `~/.local/state`.
    package static var stateHome: URL { URL(fileURLWithPath: stateHomePath, isDirectory: true) }

    // The same folders as paths, made without `URL`: `limelight search` asking limelightd needs
    // no more than these, and a `URL`'s path costs more than the rest of what the command does.
    package static var homePath: String { variable("HOME") ?? NSHomeDirectory() }
    package static var dataHomePath: String { path("XDG_DATA_HOME") ?? joined(homePath, ".local/share") }
    package static var stateHomePath: String { path("XDG_STATE_HOME") ?? joined(homePath, ".local/state") }

    /// `$XDG_DATA_DIRS`, by default `/usr/local/share` and `/usr/share`, most important first.
    package static var dataDirectories: [URL] {
        let listed = (variable("XDG_DATA_DIRS") ?? "").split(separator: ":").filter { $0.hasPrefix("/") }
        let paths = listed.isEmpty ? ["/usr/local/share", "/usr/share"] : listed.map(String.init)
        return paths.map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    private static func path(_ name: String) -> String? {
        guard let path = variable(name), path.hasPrefix("/") else { return nil }
        return path
    }

    private static func joined(_ folder: String, _ relative: String) -> String {
        folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
    }
}

import Foundation

/// The registry of records roots under `$XDG_STATE_HOME/limelight/roots/`: one file per store,
/// named by its UUID and holding the root's path. The daemon watches this folder, so a new app's
/// markers are found without configuration.
public enum ExternalRecordsRegistry {
    /// `$XDG_STATE_HOME/limelight/roots` (default `~/.local/state/limelight/roots`).
    public static var rootsDirectory: URL {
        XDGDirectories.stateHome.appendingPathComponent("limelight/roots", isDirectory: true)
    }

    /// Records `root` for `storeIdentifier`, replacing an older entry (a moved store).
    public static func register(root: URL, storeIdentifier: String, in registry: URL? = nil) throws {
        let directory = registry ?? rootsDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let entry = directory.appendingPathComponent(storeIdentifier)
        let text = root.standardizedFileURL.path + "\n"
        if (try? String(contentsOf: entry, encoding: .utf8)) == text { return }
        try AtomicFile.write(Data(text.utf8), to: entry, permissions: 0o600, durable: true)
    }

    /// Every registered records root, by store UUID.
    public static func registeredRoots() -> [String: URL] { registeredRoots(in: rootsDirectory) }

    /// Every records root registered in `registry`, by store UUID.
    public static func registeredRoots(in registry: URL) -> [String: URL] {
        let directory = registry
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [:] }
        var result: [String: URL] = [:]
        for name in names where !name.hasPrefix(".") {
            guard let text = try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) else { continue }
            let path = text.trimmingWhitespace
            if !path.isEmpty { result[name] = URL(fileURLWithPath: path, isDirectory: true) }
        }
        return result
    }
}

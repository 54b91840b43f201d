import Foundation

/// The test process's own `$XDG_STATE_HOME`: stores opened without a registry option register
/// their records folders there, never in the user's, and the registry's path look-ups find them.
/// One folder per process, removed when it exits: a shared one gathered an entry for every store
/// of every run.
enum TestStateHome {
    static func prepare() { _ = folder }

    /// Set once, before the first store that needs it is opened; the environment is the
    /// process's, so every test after that sees the same folder.
    private static let folder: String = {
        let folder = path(of: getpid())
        setenv("XDG_STATE_HOME", folder, 1)
        atexit { try? FileManager.default.removeItem(atPath: TestStateHome.path(of: getpid())) }
        return folder
    }()

    private static func path(of process: pid_t) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("limelight-tests-state-\(process)").path
    }
}

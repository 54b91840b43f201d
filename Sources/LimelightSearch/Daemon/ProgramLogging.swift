import Logging

/// How Limelight's long-running programs log: to standard error (journald keeps it when systemd
/// or D-Bus starts them), at info, or debug with `--verbose`.
public enum ProgramLogging {
    /// Sets up swift-log for the process; call once, first thing.
    public static func bootstrap(verbose: Bool) {
        let level: Logger.Level = verbose ? .debug : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

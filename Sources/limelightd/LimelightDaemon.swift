import ArgumentParser
import Foundation
import LimelightSearch
import Logging

/// limelightd: keeps the search index in step with every registered store's marker files.
@main
struct LimelightDaemon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limelightd",
        abstract: "The Limelight indexer daemon: watches marker folders with inotify and feeds the Xapian index.",
        discussion: "Runs until SIGTERM or SIGINT, which finish the current batch and commit. Meant to run as a systemd user service (limelightd.service).")

    @Flag(help: "Stay in the foreground (the default; systemd and the shell manage the process).") var foreground = false
    @Option(help: "The Xapian index (default: $XDG_DATA_HOME/limelight/index).") var index: String?
    @Option(help: "Stemming language for indexed text (a Xapian stemmer name, or none).") var language = "english"
    @Flag(help: "Log every batch.") var verbose = false
    @Option(help: "Seconds between rescans of a folder that could not be watched (inotify watch limit).")
    var rescanInterval: Double = 30
    @Option(help: "Seconds to gather changes for the next batch when they come faster than batches are applied; otherwise a change is indexed at once.")
    var coalescingWindow: Double = IndexerDaemon.Options().coalescingWindow
    @Option(help: ArgumentHelp("Use at most N inotify watches, as if the kernel's limit were that low: a testing aid for the periodic-scan fallback.", valueName: "N"))
    var maxWatches: Int?

    func validate() throws {
        guard rescanInterval > 0, rescanInterval.isFinite else { throw ValidationError("--rescan-interval must be a positive number of seconds") }
        guard coalescingWindow >= 0, coalescingWindow.isFinite else { throw ValidationError("--coalescing-window must be zero or a positive number of seconds") }
        if let maxWatches, maxWatches < 0 { throw ValidationError("--max-watches must not be negative") }
    }

    func run() throws {
        ProgramLogging.bootstrap(verbose: verbose)
        let logger = Logger(label: "limelightd")
        var options = IndexerDaemon.Options()
        if let index { options.indexPath = URL(fileURLWithPath: index) }
        options.language = language
        options.rescanInterval = rescanInterval
        options.coalescingWindow = coalescingWindow
        options.maxWatches = maxWatches
        let daemon: IndexerDaemon
        do {
            daemon = try IndexerDaemon(options: options, logger: logger)
        } catch let error as SearchIndexError where error.kind == .lock {
            FileHandle.standardError.write(Data("limelightd: another limelightd is already running on \(options.indexPath.path) (the index is locked); not starting a second one\n".utf8))
            throw ExitCode(1)
        }
        try daemon.run()
        logger.info("limelightd: stopped")
    }
}

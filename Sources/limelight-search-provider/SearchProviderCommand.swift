import ArgumentParser
import CSearchProviderVtables
import Foundation
import LimelightSearch
import Logging

/// limelight-search-provider: Limelight's results in the desktop's own search, GNOME Shell's
/// overview and KDE's KRunner, over D-Bus. The bus starts it when a shell first searches
/// (D-Bus activation), and it ends after a while without calls, as search providers do.
@main
struct SearchProviderCommand: ParsableCommand {
    /// The well-known name the shells call (the GNOME `.ini`, the KRunner plugin and the D-Bus
    /// service file name it too).
    static let busName = "org.limelight.SearchProvider"
    static let gnomeObjectPath = "/org/limelight/SearchProvider"
    static let krunnerObjectPath = "/org/limelight/KRunner"

    static let configuration = CommandConfiguration(
        commandName: "limelight-search-provider",
        abstract: "Serve Limelight's search to GNOME Shell and KRunner on the session bus.",
        discussion: """
        Owns \(busName) and serves org.gnome.Shell.SearchProvider2 at \(gnomeObjectPath) and org.kde.krunner1 at \
        \(krunnerObjectPath). Searches are answered by limelightd when it runs, else here. Started by D-Bus activation; \
        ends after --idle-timeout seconds without a call.
        """)

    @Option(help: "The index (default: $XDG_DATA_HOME/limelight/index).") var index: String?
    @Option(help: "At most this many results per search.") var limit = 10
    @Option(help: "End after this many seconds without a call.") var idleTimeout: Double = 30
    @Flag(help: "Log every call's outcome.") var verbose = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be positive") }
        guard idleTimeout > 0, idleTimeout.isFinite else { throw ValidationError("--idle-timeout must be a positive number of seconds") }
    }

    func run() throws {
        ProgramLogging.bootstrap(verbose: verbose)
        let logger = Logger(label: "limelight-search-provider")
        // A shell that gives up on a call closes nothing of ours; a write to a closed pipe (the
        // log, when whoever started us went away) must not end the process either.
        signal(SIGPIPE, SIG_IGN)
        // A process inherits its blocked signals from whoever started it (a thread of a program
        // that blocks them for its own reasons); the provider must still end on SIGTERM.
        var ending = sigset_t()
        sigemptyset(&ending)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&ending, signal) }
        if pthread_sigmask(SIG_UNBLOCK, &ending, nil) != 0 { logger.warning("cannot unblock SIGTERM; stop the provider with SIGKILL") }
        let searcher = ResultSearcher(indexPath: index ?? ExternalRecordsRegistryPaths.defaultIndexPath, limit: limit, logger: logger)
        let service = SearchProviderService(searcher: searcher, logger: logger)
        // The trampolines' target, which the connection's vtables point at: freed once the
        // connection is closed, when `serve` has returned.
        let target = UnsafeMutablePointer<sp_target>.allocate(capacity: 1)
        target.initialize(to: sp_target(
            handler: { context, method, message, error in
                guard let context, let message else { return -EINVAL }
                let service = Unmanaged<SearchProviderService>.fromOpaque(context).takeUnretainedValue()
                return service.handle(method, message: message, replyError: error)
            },
            context: Unmanaged.passRetained(service).toOpaque()))
        defer {
            if let context = target.pointee.context { Unmanaged<SearchProviderService>.fromOpaque(context).release() }
            target.deinitialize(count: 1)
            target.deallocate()
        }
        try serve(service, through: target, logger: logger)
    }

    /// Owns the bus name and answers calls until the provider has been idle long enough or the
    /// bus goes away; the connection is closed when it returns.
    private func serve(_ service: SearchProviderService, through target: UnsafeMutablePointer<sp_target>, logger: Logger) throws {
        let connection = try BusConnection()
        try connection.addGnomeSearchProvider(at: Self.gnomeObjectPath, target: target)
        try connection.addKRunnerRunner(at: Self.krunnerObjectPath, target: target)
        do {
            try connection.requestName(Self.busName)
        } catch let error as NameTakenError {
            logger.info("\(error); not starting a second provider")
            return
        }
        logger.info("serving \(Self.busName)")
        let idle = Duration.milliseconds(Int64(idleTimeout * 1000))
        guard try connection.serve(until: { service.lastCall + idle }) else {
            logger.info("the session bus went away; ending")
            return
        }
        // The name goes first, so that a call sent from now on starts a new provider; calls
        // that reached us before are still answered.
        try connection.releaseName(Self.busName)
        try connection.drain()
        logger.info("idle for \(idleTimeout) s; ending")
    }
}

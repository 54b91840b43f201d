import CSearchProviderVtables
import CSystemd
import Foundation
import LimelightDesktop
import Logging

/// Answers GNOME Shell's and KRunner's calls: searches, describes results, opens them.
///
/// Calls come one at a time on the thread that serves the bus, so the service needs no locks.
final class SearchProviderService {
    private let searcher: ResultSearcher
    private let icons = ResultIcons()
    private let logger: Logger
    /// When the last call came: the provider ends after a while without one.
    private(set) var lastCall = ContinuousClock.now

    init(searcher: ResultSearcher, logger: Logger) {
        self.searcher = searcher
        self.logger = logger
    }

    /// Answers one call: replies and returns 1, or fills `replyError` and returns a negative value
    /// (sd-bus replies with the error). Nothing a caller sends ends the process.
    func handle(_ method: sp_method, message: OpaquePointer, replyError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        lastCall = .now
        do {
            let reply = try BusReply(to: message)
            try answer(method, arguments: BusArguments(message: message), into: reply)
            try reply.send()
            return 1
        } catch let failure as BusError {
            logger.info("\(failure)")
            return sd_bus_error_set(replyError, failure.name, failure.message)
        } catch {
            logger.error("\(error)")
            return sd_bus_error_set(replyError, BusError.failed("").name, "\(error)")
        }
    }

    private func answer(_ method: sp_method, arguments: BusArguments, into reply: BusReply) throws {
        switch method {
        case SP_METHOD_GET_INITIAL_RESULT_SET:
            try reply.append(searcher.search(try arguments.readStrings()).map(\.id))
        case SP_METHOD_GET_SUBSEARCH_RESULT_SET:
            // The earlier results are the shell's hint that the new terms narrow them; searching
            // afresh gives the same and also finds what an earlier limit left out.
            _ = try arguments.readStrings()
            try reply.append(searcher.search(try arguments.readStrings()).map(\.id))
        case SP_METHOD_GET_RESULT_METAS:
            try writeMetas(for: try arguments.readStrings(), into: reply)
        case SP_METHOD_ACTIVATE_RESULT:
            let id = try arguments.readString()
            _ = try arguments.readStrings()
            _ = try arguments.readUInt32()
            try open(id)
        case SP_METHOD_LAUNCH_SEARCH:
            // Limelight has no window to show every result in; the overview's own list is it.
            logger.debug("LaunchSearch: no application window to show results in")
        case SP_METHOD_KRUNNER_ACTIONS:
            // A result has one thing to do, opening it, which is KRunner's default action.
            try reply.container("a", "(sss)") {}
        case SP_METHOD_KRUNNER_MATCH:
            try writeMatches(for: try arguments.readString(), into: reply)
        case SP_METHOD_KRUNNER_RUN:
            let id = try arguments.readString()
            let action = try arguments.readString()
            guard action.isEmpty else { throw BusError.invalidArguments("no action '\(action)': results are only opened") }
            try open(id)
        case SP_METHOD_KRUNNER_TEARDOWN:
            searcher.forgetResults()
        default:
            throw BusError.failed("unknown method")
        }
    }

    /// GNOME's `aa{sv}`: `id`, `name`, `description` and `gicon` of each result a search here
    /// returned. IDs no search returned are left out, as the shell expects of stale IDs.
    private func writeMetas(for ids: [String], into reply: BusReply) throws {
        try reply.container("a", "a{sv}") {
            for id in ids {
                guard let result = searcher.result(forID: id) else {
                    logger.debug("GetResultMetas: no result \(id)")
                    continue
                }
                try reply.append(dictionary: [
                    ("id", .string(result.id)), ("name", .string(result.name)),
                    ("description", .string(result.description)), ("gicon", .string(icons.icon(forMarker: result.id))),
                ])
            }
        }
    }

    /// KRunner's `a(sssida{sv})`: ID, text, icon, match type, relevance and properties.
    private func writeMatches(for query: String, into reply: BusReply) throws {
        // KRunner's PossibleMatch: found by its text, not an exact hit on a name.
        let possibleMatch: Int32 = 30
        let results = searcher.search([query])
        try reply.container("a", "(sssida{sv})") {
            for result in results {
                try reply.container("r", "sssida{sv}") {
                    try reply.append(result.id)
                    try reply.append(result.name)
                    try reply.append(icons.icon(forMarker: result.id))
                    try reply.append(possibleMatch)
                    try reply.append(result.relevance)
                    // An empty action list: no buttons besides the default action.
                    try reply.append(dictionary: [
                        ("subtext", .string(result.description)),
                        ("urls", .strings([URL(fileURLWithPath: result.id).absoluteString])),
                        ("actions", .strings([])),
                    ])
                }
            }
        }
    }

    /// Opens the record with the application registered for its type, as `limelight open` does,
    /// without waiting for the application to end.
    private func open(_ id: String) throws {
        let opener: RecordOpener
        do {
            opener = try RecordOpener(markerPath: id)
        } catch {
            throw BusError.invalidArguments("\(error)")
        }
        guard let started = try opener.start() else {
            let type = DesktopHandler.mimeType(forFile: opener.markerPath) ?? "its type"
            throw BusError.failed("\(opener.markerPath): no application is registered for \(type)")
        }
        logger.info("opening \(opener.markerPath) with \(started.handler.desktopFile)")
        let logger = self.logger, desktopFile = started.handler.desktopFile
        started.process.terminationHandler = { process in
            if process.terminationStatus != 0 {
                logger.info("\(desktopFile) exited with status \(process.terminationStatus)")
            }
        }
    }
}

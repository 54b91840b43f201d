import Foundation
import LimelightSearch

/// What `limelight search` was asked to do, as plain values: filled in by the `search` command's
/// parsed options, or read straight from the command line by `plainArguments(_:)`.
struct SearchInvocation: Equatable {
    var query: [String] = []
    var index: String?
    var language: String?
    var limit = 20
    var offset = 0
    var sort: String?
    var count = false
    var json = false
    var live = false
    var local = false

    /// Searches through limelightd when it runs for the index (it has the index, models and
    /// stores open already), else in this process.
    func run() throws {
        signal(SIGPIPE, SIG_DFL)
        let indexPath = index ?? defaultIndexPath()
        // Not `joined(separator:)`, whose generic code asks the runtime for metadata by name.
        var words = "", first = true
        for word in query {
            if !first { words += " " }
            words += word
            first = false
        }
        var options = SearchService.Options(query: words)
        options.language = language
        options.limit = limit
        options.offset = offset
        options.sort = sort
        let request = SearchRequest(options: options, count: count, json: json)
        if !live, !local, let reply = SearchClient.reply(to: request, indexPath: indexPath) {
            try show(reply)
        }
        let indexURL = URL(fileURLWithPath: indexPath)
        let service = try SearchService(indexPath: indexURL)
        if live {
            try LiveSearch(service: service, options: options, indexURL: indexURL, json: json).run()
            return
        }
        try show(try service.reply(to: request))
    }

    /// Prints the reply and ends the process; a failed search's message goes the way of every
    /// command error. The process ends here rather than after tearing the service down:
    /// releasing the stores' contexts disposes their dispatch queues, and libdispatch starts a
    /// worker thread just to do that.
    private func show(_ reply: SearchReply) throws -> Never {
        StandardStreams.write(reply.output, to: STDOUT_FILENO)
        StandardStreams.write(reply.errorOutput, to: STDERR_FILENO)
        if let failure = reply.failure { throw CommandError(failure) }
        Foundation.exit(EXIT_SUCCESS)
    }

    /// The invocation `arguments` (what follows `search`) spell in the plain forms: words, the
    /// options each followed by its value, and the flags, each at most once. Anything else
    /// (help, `--name=value`, a value that starts with `-`, a repeated or unknown option, no
    /// words, a number that does not read as one) gives `nil`, and the command line goes to
    /// ArgumentParser, which accepts or rejects it with its own messages.
    ///
    /// This exists for speed: ArgumentParser reflects on every command and on its own
    /// completion-script commands before it looks at the arguments, and each type it meets costs
    /// the runtime a scan of every protocol conformance in the program, about a third of a
    /// search's start. The names here are the `search` command's; a test runs both paths on the
    /// same arguments.
    static func plainArguments(_ arguments: ArraySlice<String>) -> SearchInvocation? {
        var invocation = SearchInvocation()
        // An array, not a set: hashing strings would cost the runtime a search of its
        // conformance tables, and there are a handful of options.
        var seen: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-") else {
                // `help` is a word ArgumentParser may take as a request for help.
                guard argument != "help" else { return nil }
                invocation.query.append(argument)
                continue
            }
            guard !seen.contains(argument) else { return nil }
            seen.append(argument)
            switch argument {
            case "--count": invocation.count = true
            case "--json": invocation.json = true
            case "--live": invocation.live = true
            case "--local": invocation.local = true
            case "--index", "--language", "--sort", "--limit", "--offset":
                guard let value = rest.popFirst(), !value.hasPrefix("-") else { return nil }
                switch argument {
                case "--index": invocation.index = value
                case "--language": invocation.language = value
                case "--sort": invocation.sort = value
                case "--limit":
                    guard let number = Int(value) else { return nil }
                    invocation.limit = number
                default:
                    guard let number = Int(value) else { return nil }
                    invocation.offset = number
                }
            default: return nil
            }
        }
        return invocation.query.isEmpty ? nil : invocation
    }
}

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

    func run() throws {
        signal(SIGPIPE, SIG_DFL)
        let indexURL = URL(fileURLWithPath: index ?? defaultIndexPath())
        var options = SearchService.Options(query: query.joined(separator: " "))
        options.language = language
        options.limit = limit
        options.offset = offset
        options.sort = sort
        let service = try SearchService(indexPath: indexURL)
        if count {
            print(try service.count(options))
            return
        }
        if live {
            try LiveSearch(service: service, options: options, indexURL: indexURL, json: json).run()
            return
        }
        let outcome = try service.search(options)
        for hit in outcome.hits { try HitPrinter.print(hit, json: json) }
        for dropped in outcome.dropped {
            FileHandle.standardError.write(Data("dropped \(dropped.document.uri): \(dropped.reason)\n".utf8))
        }
        if outcome.hits.isEmpty && !json { FileHandle.standardError.write(Data("no matches\n".utf8)) }
        // The process ends here rather than after tearing the service down: releasing the
        // stores' contexts disposes their dispatch queues, and libdispatch starts a worker
        // thread just to do that.
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
        var seen: Set<String> = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-") else {
                // `help` is a word ArgumentParser may take as a request for help.
                guard argument != "help" else { return nil }
                invocation.query.append(argument)
                continue
            }
            guard seen.insert(argument).inserted else { return nil }
            switch argument {
            case "--count": invocation.count = true
            case "--json": invocation.json = true
            case "--live": invocation.live = true
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

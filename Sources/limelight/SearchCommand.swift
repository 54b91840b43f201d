import ArgumentParser
import Foundation
import LimelightData
import LimelightSearch

extension Limelight {
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Search the index; every hit is shown with its object's current values.",
            discussion: """
            Xapian's query syntax: words (AND by default), OR, NOT, "phrases", wild*cards, a field per indexed \
            property (name:salsa), and the filters entity:Recipe and store:<UUID>. Words are stemmed (tomatoes finds tomato).
            """)
        @Argument(help: "The query.") var query: [String]
        @Option(help: "The index (default: $XDG_DATA_HOME/limelight/index).") var index: String?
        @Option(help: "Stemming language (a Xapian stemmer name such as english or french, or none); default: the index's.")
        var language: String?
        @Option(help: "At most this many hits.") var limit = 20
        @Option(help: "Skip this many hits.") var offset = 0
        @Option(help: "Sort by an indexed property, or displayName; PROPERTY:desc for descending.") var sort: String?
        @Flag(help: "Print only the number of hits.") var count = false
        @Flag(help: "Print one JSON object per hit.") var json = false
        @Flag(help: "Keep running and print changes to the results as the index changes.") var live = false
        @Flag(help: "Search in this process even when limelightd is running (which otherwise answers, having the index and stores open).")
        var local = false

        func run() throws {
            try SearchInvocation(query: query, index: index, language: language, limit: limit, offset: offset, sort: sort,
                                 count: count, json: json, live: live, local: local).run()
        }
    }
}

/// `limelight search --live`: reruns the query whenever the index commits, printing what entered
/// (+) and left (-) the results and hits whose object changed (~), like `mdfind -live`.
struct LiveSearch {
    let service: SearchService
    let options: SearchService.Options
    let indexURL: URL
    let json: Bool

    func run() throws {
        // What was printed per URI: display name and the object's values as text.
        var shown: [String: (name: String, values: String)] = [:]
        func refresh() throws {
            try service.reader.reopen()
            let outcome = try service.search(options)
            var now: [String: (name: String, values: String)] = [:]
            var printed = ""
            for hit in outcome.hits {
                let values = ObjectPrinter.values(of: hit.object)
                let current = (hit.document.displayName, ObjectPrinter.text(values))
                now[hit.document.uri] = current
                if let before = shown[hit.document.uri] {
                    if before != current { try HitPrinter.write(hit, json: json, prefix: "~ ", values: values, to: &printed) }
                } else {
                    try HitPrinter.write(hit, json: json, prefix: "+ ", values: values, to: &printed)
                }
            }
            for (uri, old) in shown where now[uri] == nil {
                printed += json ? try JSONLine.text(["change": "-", "uri": uri, "displayName": old.name]) : "- \(old.name)  \(uri)"
                printed += "\n"
            }
            StandardStreams.write(printed, to: STDOUT_FILENO)
            for dropped in outcome.dropped {
                StandardStreams.write(HitPrinter.droppedLine(dropped.document, reason: dropped.reason), to: STDERR_FILENO)
            }
            shown = now
        }
        try refresh()
        let changes = DispatchSemaphore(value: 0)
        let watcher = try InotifyWatcher { _ in changes.signal() }
        watcher.addTree(indexURL.path)
        watcher.start()
        while true {
            changes.wait()
            while changes.wait(timeout: .now() + 0.05) == .success {}
            try refresh()
        }
    }
}

import Foundation
import LimelightSearch
import Logging

/// Runs the desktop's searches the way `limelight search` does: limelightd answers when it runs
/// for the index, else the search runs here. Remembers what it found, for the shell's later
/// questions about those results (their names, their descriptions).
final class ResultSearcher {
    let indexPath: String
    let limit: Int
    private let logger: Logger
    /// Results of earlier searches by ID, for `GetResultMetas`.
    private var found: [String: SearchResult] = [:]

    init(indexPath: String, limit: Int, logger: Logger) {
        self.indexPath = indexPath
        self.limit = limit
        self.logger = logger
    }

    /// The best hits for words as typed, best first. The last word also finds words it begins
    /// (the shells search while the user types). A query the index cannot read finds nothing: a
    /// half-typed query is normal here, not an error to report.
    func search(_ terms: [String]) -> [SearchResult] {
        let words = terms.flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
        guard let last = words.last else { return [] }
        let plain = words.joined(separator: " ")
        var queries = [plain]
        // Only a plain word becomes a prefix: `name:sal*` or `"a phrase"*` are not Xapian's syntax.
        if last.count >= 2, last.allSatisfy({ $0.isLetter || $0.isNumber }) {
            queries.insert((words.dropLast() + ["(\(last) OR \(last)*)"]).joined(separator: " "), at: 0)
        }
        for query in queries {
            switch run(query) {
            case .success(let results):
                for result in results { found[result.id] = result }
                return results
            case .failure(let reason):
                logger.debug("search '\(query)' failed: \(reason)")
            }
        }
        return []
    }

    /// A result found by an earlier search; `nil` for an ID no search here returned.
    func result(forID id: String) -> SearchResult? { found[id] }

    /// Forgets earlier results (KRunner's `Teardown`: the search session is over).
    func forgetResults() { found = [:] }

    private enum Outcome {
        case success([SearchResult])
        case failure(String)
    }

    private func run(_ query: String) -> Outcome {
        var options = SearchService.Options(query: query)
        options.limit = limit
        let request = SearchRequest(options: options, json: true)
        let reply: SearchReply
        if let served = SearchClient.reply(to: request, indexPath: indexPath) {
            reply = served
        } else {
            do {
                reply = try SearchService(indexPath: URL(fileURLWithPath: indexPath)).reply(to: request)
            } catch {
                return .failure("\(error)")
            }
        }
        if let failure = reply.failure { return .failure(failure) }
        if !reply.errorOutput.isEmpty { logger.debug("search '\(query)': \(reply.errorOutput)") }
        return .success(reply.output.split(separator: "\n").compactMap { Self.result(fromJSONLine: String($0)) })
    }

    /// A hit as `limelight search --json` prints it; `nil` for a line that is not one.
    static func result(fromJSONLine line: String) -> SearchResult? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let marker = object["marker"] as? String, !marker.isEmpty else { return nil }
        let name = object["displayName"] as? String ?? (marker as NSString).lastPathComponent
        let snippet = (object["snippet"] as? String ?? "").filter { $0 != "[" && $0 != "]" }
        let percent = object["percent"] as? Int ?? 0
        return SearchResult(id: marker, name: name, description: snippet, relevance: Double(min(max(percent, 0), 100)) / 100)
    }
}

/// A search hit as `limelight search` shows it: the display name, entity and relevance, the
/// object's URI and marker, the snippet, and the object's current values; or all of that as one
/// JSON object per line. Written into a string, so that the command and limelightd (which answers
/// the command's searches) show hits alike.
public enum HitPrinter {
    /// `prefix` marks what `--live` reports: `+ ` new, `~ ` changed. `values` are the object's, when
    /// the caller read them already.
    public static func write(_ hit: SearchService.Hit, json: Bool, prefix: String = "", values: [String: PrintedValue]? = nil,
                             to output: inout String) throws {
        let values = values ?? ObjectPrinter.values(of: hit.object)
        if json {
            var object: [String: Any] = ["displayName": hit.document.displayName, "entity": hit.document.entity, "uri": hit.document.uri,
                                         "marker": hit.document.marker, "store": hit.document.store, "percent": hit.percent,
                                         "snippet": hit.snippet, "values": ObjectPrinter.json(values)]
            if !prefix.isEmpty { object["change"] = String(prefix.prefix { $0 != " " }) }
            output += try JSONLine.text(object)
            output += "\n"
            return
        }
        output += "\(prefix)\(hit.document.displayName)  [\(hit.document.entity), \(hit.percent)%]\n"
        output += "  uri:    \(hit.document.uri)\n"
        output += "  marker: \(hit.document.marker)\n"
        // Xapian marks a cut with "…" itself; a snippet from the text's start has none.
        if !hit.snippet.isEmpty { output += "  text:   \(hit.snippet)\n" }
        output += ObjectPrinter.text(values, indent: "    ")
        output += "\n"
    }

    /// The line that reports a hit left out because its object is gone or its store cannot be
    /// opened (standard error).
    public static func droppedLine(_ document: IndexLayout.DocumentData, reason: String) -> String {
        "dropped \(document.uri): \(reason)\n"
    }
}

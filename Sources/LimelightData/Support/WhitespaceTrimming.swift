extension StringProtocol {
    /// The text without whitespace and newlines at either end.
    ///
    /// For the one-line files of the records folder and the roots registry, read on every
    /// `limelight search`: Foundation's `trimmingCharacters(in:)` goes through `NSString` and its
    /// first use costs a noticeable share of a short-lived process.
    var trimmingWhitespace: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}

/// Makes the rows of a dictionary fetch, which all have the same keys, without hashing a key for
/// every value.
///
/// A row starts as a copy of one dictionary holding every key (the copy keeps each key in its
/// bucket), and its values are written by their index in it: about 130 instructions a value for
/// the copy. Setting each value by its key hashed the key and grew the dictionary several times,
/// about 1,050 a value, where SQLite reads one in about 60.
struct DictionaryRowTemplate {
    private let template: [String: Any]
    private let slots: [Dictionary<String, Any>.Index]
    private let keys: [String]

    /// A template for rows with `keys`, one value per key in that order; `nil` when a key is
    /// given twice.
    init?(keys: [String]) {
        var template: [String: Any] = [:]
        template.reserveCapacity(keys.count)
        for key in keys {
            // Any value will do: each is replaced, or its key removed, before a row is handed out.
            guard template.updateValue(0, forKey: key) == nil else { return nil }
        }
        var slots: [Dictionary<String, Any>.Index] = []
        for key in keys {
            guard let slot = template.index(forKey: key) else { return nil }
            slots.append(slot)
        }
        self.template = template
        self.slots = slots
        self.keys = keys
    }

    /// A row whose value for key number `column` is `value(column)`; a nil value leaves its key out.
    @inline(__always)
    func row<Failure: Error>(_ value: (Int) throws(Failure) -> Any?) throws(Failure) -> [String: Any] {
        var row = template
        var absent: [Int] = []
        for column in slots.indices {
            if let value = try value(column) { row.values[slots[column]] = value } else { absent.append(column) }
        }
        // Removing a key moves others, so absent keys go once every index has been used.
        for column in absent { row.removeValue(forKey: keys[column]) }
        return row
    }
}

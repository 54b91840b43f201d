import Foundation

/// Orders attribute values the way SQLite orders the stored columns, so in-memory sorting (for
/// unsaved objects) agrees with sorting in SQL.
enum ValueOrdering {
    static func compare(_ a: Any?, _ b: Any?, comparison: QuerySortDescriptor.Comparison) -> ComparisonResult {
        switch (a, b) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        default: break
        }
        if let x = a.flatMap({ AttributeValueCoercion.double($0) }), let y = b.flatMap({ AttributeValueCoercion.double($0) }),
           !(a is String), !(b is String) {
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
        if let x = a as? Date, let y = b as? Date { return x.compare(y) }
        if let x = a as? String, let y = b as? String {
            switch comparison {
            case .standard: return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
            case .caseInsensitive: return x.caseInsensitiveCompare(y)
            case .localized: return localizedCompare(x, y)
            }
        }
        return String(describing: a ?? "") < String(describing: b ?? "") ? .orderedAscending : .orderedDescending
    }

    /// The order of a `.localized` sort: case and diacritics aside, digits by their numeric value,
    /// as `localizedStandardCompare` orders file names. SQL sorts with the same function (the
    /// store's `LL_LOCALIZED` collation).
    static func localizedCompare(_ x: String, _ y: String) -> ComparisonResult {
        LocalizedASCIIOrdering.compare(x, y) ?? foundationLocalizedCompare(x, y)
    }

    /// The same order from Foundation alone, for strings `LocalizedASCIIOrdering` does not take
    /// (the store's collation has already tried it on SQLite's bytes).
    static func foundationLocalizedCompare(_ x: String, _ y: String) -> ComparisonResult {
        x.compare(y, options: [.caseInsensitive, .diacriticInsensitive, .numeric])
    }

    static func sort(_ objects: [ManagedObject], by descriptors: [QuerySortDescriptor]) -> [ManagedObject] {
        guard !descriptors.isEmpty else { return objects }
        return objects.sorted { left, right in
            for descriptor in descriptors {
                let result = compare(left.value(forKeyPath: descriptor.key), right.value(forKeyPath: descriptor.key),
                                     comparison: descriptor.comparison)
                if result == .orderedSame { continue }
                return descriptor.ascending ? result == .orderedAscending : result == .orderedDescending
            }
            return false
        }
    }
}

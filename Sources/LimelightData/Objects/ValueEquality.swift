import Foundation

/// Equality of attribute values of types without a case of their own in `StoredValue` (which
/// compares the others itself), and of model default values.
enum ValueEquality {
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (x as AnyHashable, y as AnyHashable): return x == y
        // Composite values: the same keys with the same values.
        case let (x as [String: Any], y as [String: Any]):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        case let (x as AnyObject, y as AnyObject): return x === y
        default: return false
        }
    }
}

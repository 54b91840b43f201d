import Foundation

/// Equality of stored values of any attribute type, used for change detection.
enum ValueEquality {
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (x as ToManySlot, y as ToManySlot):
            // An unloaded to-many is only known to be unchanged against another unloaded one.
            switch (x, y) {
            case (.fault, .fault): return true
            case let (.loaded(left), .loaded(right)): return left == right
            default: return false
            }
        case let (x as AnyHashable, y as AnyHashable): return x == y
        case let (x as AnyObject, y as AnyObject): return x === y
        default: return false
        }
    }
}

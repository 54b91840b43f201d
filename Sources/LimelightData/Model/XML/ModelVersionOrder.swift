import Foundation

/// The order of the versions in an `.xcdatamodeld` bundle.
///
/// Xcode names a bundle's first version after the bundle (`Moody`) and each version added after
/// it with a number (`Moody 2`, `Moody 3` … `Moody 10`); projects that name versions themselves
/// mostly number them too (`1.7`, `1.8`, `0.6.10`, `v2`). Compared as plain text,
/// `Moody 2.xcdatamodel` sorts before `Moody.xcdatamodel` (a space before a dot) and `Moody 10`
/// before `Moody 9`, so the first version came last and a bundle without `.xccurrentversion`
/// opened an old version as its current one. Here runs of digits compare as numbers, and a name
/// that is the start of another comes first.
enum ModelVersionOrder {
    /// Whether the version named `a` comes before the one named `b`.
    static func precedes(_ a: String, _ b: String) -> Bool {
        var left = Substring(a), right = Substring(b)
        while let l = left.first, let r = right.first {
            if l.isASCIIDigit && r.isASCIIDigit {
                let leftDigits = left.prefix(while: \.isASCIIDigit), rightDigits = right.prefix(while: \.isASCIIDigit)
                let leftNumber = leftDigits.drop(while: { $0 == "0" }), rightNumber = rightDigits.drop(while: { $0 == "0" })
                if leftNumber.count != rightNumber.count { return leftNumber.count < rightNumber.count }
                if leftNumber != rightNumber { return leftNumber < rightNumber }
                left = left.dropFirst(leftDigits.count)
                right = right.dropFirst(rightDigits.count)
            } else {
                if l != r { return l < r }
                left = left.dropFirst()
                right = right.dropFirst()
            }
        }
        // One name is the start of the other: the shorter is the earlier version ("Moody"
        // before "Moody 2"); equal names keep their places.
        return left.isEmpty && !right.isEmpty
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

import Foundation
@testable import LimelightData

/// An object of a compiled-model archive, under Core Data's class name with the keys Core Data
/// writes, so tests can make archives holding what the fixture store's cache does not: proxies,
/// known-keys dictionaries, predicates, flag words.
///
/// Field values: `Bool`, `Int` and `Double` are written in the object; `String`, stubs and the
/// collections below are written as objects of their own and referred to, as `NSKeyedArchiver` does.
class ArchiveStub {
    let className: String
    var fields: [(String, Any)]

    init(_ className: String, _ fields: [(String, Any)] = []) {
        self.className = className
        self.fields = fields
    }

    /// A keyed archive (binary property list) whose root object is `root`.
    static func archive(_ root: ArchiveStub) throws -> Data {
        var archiver = StubArchiver()
        let top = archiver.reference(root)
        let plist: [String: Any] = ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": top],
                                    "$objects": archiver.objects]
        return try PropertyListWriter.data(plist, format: .binary)
    }
}

/// An `NSArray`, `NSSet` or `NSDictionary` in an archive.
struct ArchivedArray { let elements: [Any] }
struct ArchivedSet { let elements: [Any] }
struct ArchivedDictionary { let entries: [(Any, Any)] }

/// Lays out stubs as a keyed archive's `$objects`: each object once, referred to by index.
private struct StubArchiver {
    var objects: [Any] = ["$null"]
    private var indices: [ObjectIdentifier: Int] = [:]
    private var classes: [String: Int] = [:]

    mutating func reference(_ value: Any) -> PropertyListUID {
        switch value {
        case let stub as ArchiveStub:
            if let known = indices[ObjectIdentifier(stub)] { return PropertyListUID(UInt64(known)) }
            let index = reserve()
            indices[ObjectIdentifier(stub)] = index
            var dictionary: [String: Any] = ["$class": classReference(stub.className)]
            for (key, field) in stub.fields { dictionary[key] = inline(field) }
            objects[index] = dictionary
            return PropertyListUID(UInt64(index))
        case let array as ArchivedArray:
            return container("NSArray", ["NS.objects": array.elements.map { reference($0) }])
        case let set as ArchivedSet:
            return container("NSSet", ["NS.objects": set.elements.map { reference($0) }])
        case let dictionary as ArchivedDictionary:
            return container("NSMutableDictionary", ["NS.keys": dictionary.entries.map { reference($0.0) },
                                                     "NS.objects": dictionary.entries.map { reference($0.1) }])
        default:
            objects.append(value)
            return PropertyListUID(UInt64(objects.count - 1))
        }
    }

    private mutating func inline(_ field: Any) -> Any {
        switch field {
        case is Bool, is Int, is Double: return field
        default: return reference(field)
        }
    }

    private mutating func container(_ className: String, _ fields: [String: Any]) -> PropertyListUID {
        let index = reserve()
        var dictionary = fields
        dictionary["$class"] = classReference(className)
        objects[index] = dictionary
        return PropertyListUID(UInt64(index))
    }

    private mutating func reserve() -> Int {
        objects.append("")
        return objects.count - 1
    }

    private mutating func classReference(_ name: String) -> PropertyListUID {
        if let known = classes[name] { return PropertyListUID(UInt64(known)) }
        objects.append(["$classname": name, "$classes": [name, "NSObject"]] as [String: Any])
        classes[name] = objects.count - 1
        return PropertyListUID(UInt64(objects.count - 1))
    }
}

/// Archived predicates and expressions, as `NSPredicate` archives them.
enum ArchivedPredicates {
    static func this() -> ArchiveStub { ArchiveStub("NSSelfExpression", [("NSExpressionType", 1)]) }

    /// A key path expression, read from `SELF` or from another expression (`$FETCH_SOURCE.folder`).
    static func keyPath(_ path: String, of operand: ArchiveStub = this()) -> ArchiveStub {
        ArchiveStub("NSKeyPathExpression", [("NSOperand", operand), ("NSSelectorName", "valueForKeyPath:"),
                                            ("NSArguments", ArchivedArray(elements: [ArchiveStub("NSKeyPathSpecifierExpression", [("NSKeyPath", path), ("NSExpressionType", 10)])])),
                                            ("NSExpressionType", 3)])
    }

    static func constant(_ value: Any) -> ArchiveStub {
        ArchiveStub("NSConstantValueExpression", [("NSConstantValue", value), ("NSExpressionType", 0)])
    }

    static func variable(_ name: String) -> ArchiveStub {
        ArchiveStub("NSVariableExpression", [("NSVariable", name), ("NSExpressionType", 2)])
    }

    /// `left <op> right`; `options` 1 = [c], 2 = [d]; `modifier` 2 = ANY.
    static func comparison(_ left: ArchiveStub, _ type: Int, _ right: ArchiveStub, options: Int = 0, modifier: Int = 0) -> ArchiveStub {
        ArchiveStub("NSComparisonPredicate", [
            ("NSPredicateOperator", ArchiveStub("NSComparisonPredicateOperator", [("NSOperatorType", type), ("NSModifier", modifier), ("NSOptions", options)])),
            ("NSLeftExpression", left), ("NSRightExpression", right),
        ])
    }

    /// 0 NOT, 1 AND, 2 OR.
    static func compound(_ type: Int, _ parts: [ArchiveStub]) -> ArchiveStub {
        ArchiveStub("NSCompoundPredicate", [("NSCompoundPredicateType", type), ("NSSubpredicates", ArchivedArray(elements: parts))])
    }
}

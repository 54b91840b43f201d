import Foundation

extension KeyedArchive {
    /// The classes of plain values (Core Data's secure transformer's), by archived name, and the
    /// fields each must have in the form Foundation's unarchiver reads without checking.
    private static let plainClasses: [String: Shape] = [
        "NSArray": .elements, "NSMutableArray": .elements, "NSSet": .elements, "NSMutableSet": .elements,
        "NSOrderedSet": .elements, "NSMutableOrderedSet": .elements,
        "NSDictionary": .dictionary, "NSMutableDictionary": .dictionary,
        "NSString": .string, "NSMutableString": .string, "NSDate": .date, "NSData": .data, "NSMutableData": .data,
        "NSURL": .url, "NSUUID": .uuid, "NSNull": .none,
    ]

    private enum Shape {
        case elements, dictionary, string, date, data, url, uuid, none
    }

    /// Whether every object the archive holds is a plain value (string, number, date, data, URL,
    /// UUID, null, or an array, set or dictionary of them) with the fields its class needs.
    ///
    /// Foundation's unarchiver on Linux trusts what it reads: a class entry without its name, or a
    /// dictionary with fewer keys than values, makes it read memory it does not own and crash the
    /// process. So an archive is looked over first, and one in any other form is not handed to it.
    func holdsOnlyPlainValues() -> Bool { otherClassNames()?.isEmpty == true }

    /// The names of the classes other than plain values' that the archive's objects are of, when
    /// the plain values among them have the fields their classes need and every other object's
    /// references lead to objects of the archive; `nil` when not. An application's own classes
    /// read their fields themselves (`init(coder:)`): what they read is theirs to check.
    func otherClassNames() -> Set<String>? {
        var others: Set<String> = []
        let references = { (value: Any?) -> [UInt64]? in
            guard let items = value as? [Any] else { return nil }
            let uids = items.compactMap { ($0 as? PropertyListUID)?.value }
            return uids.count == items.count ? uids : nil
        }
        let exists = { (uid: UInt64) in uid > 0 && uid < UInt64(objects.count) }
        for object in objects.dropFirst() {
            guard let fields = object as? [String: Any] else {
                // Inline values: strings, numbers, booleans and data; dates come as objects.
                if object is String || object is Int || object is Double || object is Bool || object is UInt64 || object is Data { continue }
                return nil
            }
            // A class entry: a name and the classes it descends through.
            if fields["$classes"] != nil || fields["$classname"] != nil {
                guard let name = fields["$classname"] as? String, let chain = fields["$classes"] as? [Any],
                      chain.allSatisfy({ $0 is String }) else { return nil }
                if Self.plainClasses[name] == nil { others.insert(name) }
                continue
            }
            guard let classReference = fields["$class"] as? PropertyListUID, exists(classReference.value),
                  let classFields = objects[Int(classReference.value)] as? [String: Any],
                  let name = classFields["$classname"] as? String else { return nil }
            guard let shape = Self.plainClasses[name] else {
                // An app's object refers to `$null` (entry 0) for each nil it encoded.
                guard Self.allReferences(in: fields).allSatisfy({ $0 < UInt64(objects.count) }) else { return nil }
                continue
            }
            switch shape {
            case .elements:
                guard let elements = references(fields["NS.objects"]), elements.allSatisfy(exists) else { return nil }
            case .dictionary:
                guard let keys = references(fields["NS.keys"]), let values = references(fields["NS.objects"]),
                      keys.count == values.count, (keys + values).allSatisfy(exists) else { return nil }
            case .string:
                guard fields["NS.string"] is String || fields["NS.bytes"] is Data else { return nil }
            case .date:
                guard fields["NS.time"] is Double || fields["NS.time"] is Int else { return nil }
            case .data:
                guard fields["NS.data"] is Data else { return nil }
            case .url:
                // An absolute URL, as archivers write one: a text no `URL` reads, or a base URL,
                // decodes into an object that traps when bridged.
                guard let relative = fields["NS.relative"] as? PropertyListUID, exists(relative.value),
                      let text = objects[Int(relative.value)] as? String, URL(string: text)?.scheme != nil,
                      (fields["NS.base"] as? PropertyListUID).map({ $0.value == 0 }) ?? true else { return nil }
            case .uuid:
                guard (fields["NS.uuidbytes"] as? Data)?.count == 16 else { return nil }
            case .none:
                continue
            }
        }
        // The roots: objects (or `$null`) of the archive.
        guard top.values.allSatisfy({ ($0 as? PropertyListUID).map { $0.value < UInt64(objects.count) } ?? false }) else { return nil }
        return others
    }

    /// Every object reference in a field's value, inside arrays and dictionaries too.
    private static func allReferences(in value: Any) -> [UInt64] {
        switch value {
        case let uid as PropertyListUID: [uid.value]
        case let array as [Any]: array.flatMap(allReferences)
        case let dictionary as [String: Any]: dictionary.values.flatMap(allReferences)
        default: []
        }
    }

    /// The class name of the archive's root object, Foundation's for a value kept in place (a
    /// string, number or data); `nil` for no root, or one without a class entry.
    func rootClassName() -> String? {
        guard let field = top["root"] ?? (top.count == 1 ? top.values.first : nil) else { return nil }
        guard let root = field as? PropertyListUID else { return Self.inlineClassName(of: field) }
        guard root.value > 0, root.value < UInt64(objects.count) else { return nil }
        let stored = objects[Int(root.value)]
        guard let fields = stored as? [String: Any] else { return Self.inlineClassName(of: stored) }
        guard let classReference = fields["$class"] as? PropertyListUID, classReference.value < UInt64(objects.count) else { return nil }
        return (objects[Int(classReference.value)] as? [String: Any])?["$classname"] as? String
    }
}

extension KeyedArchive {
    /// The value the archive's root holds, in Swift's types (`[Any]`, `[String: Any]`, `Set`,
    /// `String`, numbers, `Date`, `Data`, `URL`, `UUID`, `NSNull`); `nil` when it has no root.
    ///
    /// Read here rather than by Foundation's unarchiver, which on Linux trusts the archive's
    /// fields and reads memory it does not own on a damaged one. Ask only once
    /// `holdsOnlyPlainValues()` and `expandedCount(limit:)` have passed: then every reference
    /// exists, nothing contains itself and nesting is bounded, so the walk ends.
    func plainRootValue() -> Any? {
        guard let root = top["root"] ?? (top.count == 1 ? top.values.first : nil) else { return nil }
        return plainValue(root)
    }

    private func plainValue(_ field: Any) -> Any? {
        // Numbers and booleans sit in their fields; everything else is referred to by index.
        guard let reference = field as? PropertyListUID else { return field }
        // Index 0 is the archive's `$null`.
        guard reference.value > 0, reference.value < UInt64(objects.count) else { return nil }
        let stored = objects[Int(reference.value)]
        guard let fields = stored as? [String: Any] else { return stored }
        guard let classReference = fields["$class"] as? PropertyListUID, classReference.value < UInt64(objects.count),
              let name = (objects[Int(classReference.value)] as? [String: Any])?["$classname"] as? String,
              let shape = Self.plainClasses[name] else { return nil }
        switch shape {
        case .elements:
            let elements = (fields["NS.objects"] as? [Any] ?? []).compactMap(plainValue)
            guard name.hasSuffix("Set"), !name.hasSuffix("OrderedSet") else { return elements }
            return Set(elements.compactMap { $0 as? AnyHashable })
        case .dictionary:
            let keys = (fields["NS.keys"] as? [Any] ?? []).map(plainValue)
            let values = (fields["NS.objects"] as? [Any] ?? []).map(plainValue)
            var result: [AnyHashable: Any] = [:]
            for (key, value) in zip(keys, values) {
                if let key = key as? AnyHashable, let value { result[key] = value }
            }
            // String keys, by far the usual, read as `[String: Any]`.
            guard result.keys.allSatisfy({ $0.base is String }) else { return result }
            return Dictionary(uniqueKeysWithValues: result.compactMap { key, value in (key.base as? String).map { ($0, value) } })
        case .string:
            if let string = fields["NS.string"] as? String { return string }
            return (fields["NS.bytes"] as? Data).flatMap { String(data: $0, encoding: .utf8) }
        case .date:
            let seconds = fields["NS.time"] as? Double ?? (fields["NS.time"] as? Int).map(Double.init)
            return seconds.map { Date(timeIntervalSinceReferenceDate: $0) }
        case .data:
            return fields["NS.data"] as? Data
        case .url:
            guard let relative = fields["NS.relative"] as? PropertyListUID, relative.value < UInt64(objects.count),
                  let text = objects[Int(relative.value)] as? String else { return nil }
            return URL(string: text)
        case .uuid:
            guard let bytes = fields["NS.uuidbytes"] as? Data, bytes.count == 16 else { return nil }
            let b = Array(bytes)
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        case .none:
            return NSNull()
        }
    }

    private static func inlineClassName(of value: Any) -> String? {
        switch value {
        case is String: "NSString"
        case is Data: "NSData"
        case is Int, is UInt64, is Double, is Bool: "NSNumber"
        default: nil
        }
    }
}

import Foundation

/// An `NSKeyedArchiver` archive, read as the property list it is: a `$objects` table whose entries
/// refer to each other by index (`PropertyListUID`), and a `$top` dictionary naming the roots.
///
/// Foundation's unarchiver would have to know every archived class (on Linux it knows none of Core
/// Data's), and it builds the whole graph at once; this reader hands out one object's fields at a
/// time and leaves the meaning to the caller. Every reference is checked against the table, so a
/// damaged archive gives an error naming the object, never a crash.
struct KeyedArchive {
    /// One archived object: its position in `$objects` and its keyed fields.
    struct Object {
        let index: Int
        let fields: [String: Any]
    }

    let objects: [Any]
    let top: [String: Any]
    /// Names the archive in errors (a file, or a store's model cache).
    let source: String

    init(_ data: Data, source: String) throws(ModelError) {
        self.source = source
        let plist: Any
        do {
            plist = try PropertyListReader.read(data)
        } catch {
            throw ModelError("not a keyed archive: \(error)", at: source)
        }
        guard let archive = plist as? [String: Any], let objects = archive["$objects"] as? [Any],
              let top = archive["$top"] as? [String: Any] else {
            throw ModelError("not a keyed archive (no $objects and $top)", at: source)
        }
        self.objects = objects
        self.top = top
    }

    /// The object stored under `key` in `$top` (`root` for an archived root object).
    func topObject(_ key: String = "root") throws(ModelError) -> Object {
        guard let object = try object(top[key]) else { throw ModelError("the archive has no \(key) object", at: source) }
        return object
    }

    /// The reference `$top` keeps under `key`, for readers that take a field rather than an object.
    func topReference(_ key: String = "root") -> Any? { top[key] }

    /// The object a field refers to; `nil` for a missing field or the archive's `$null`.
    func object(_ reference: Any?) throws(ModelError) -> Object? {
        guard let index = try index(reference) else { return nil }
        guard let fields = objects[index] as? [String: Any] else {
            throw ModelError("object \(index) is a \(type(of: objects[index])) where an archived object was expected", at: source)
        }
        return Object(index: index, fields: fields)
    }

    /// The name of an object's class (`NSEntityDescription` …), from its `$class` entry.
    func className(of object: Object) throws(ModelError) -> String {
        guard let classObject = try self.object(object.fields["$class"]),
              let name = classObject.fields["$classname"] as? String else {
            throw ModelError("object \(object.index) has no class name", at: source)
        }
        return name
    }

    /// The class names an object's class descends through, its own first.
    func classChain(of object: Object) throws(ModelError) -> [String] {
        guard let classObject = try self.object(object.fields["$class"]) else { return [] }
        if let chain = classObject.fields["$classes"] as? [String] { return chain }
        return [try className(of: object)]
    }

    /// A plain value (string, number, data), following a reference into `$objects` when the field
    /// holds one; `nil` for a missing field or `$null`.
    func value(_ field: Any?) throws(ModelError) -> Any? {
        guard let field else { return nil }
        guard field is PropertyListUID else { return field }
        guard let index = try index(field) else { return nil }
        let stored = objects[index]
        guard let fields = stored as? [String: Any] else { return stored }
        // Strings and data may be archived as objects of their own.
        if let text = fields["NS.string"] as? String { return text }
        if let bytes = fields["NS.bytes"] as? Data { return String(decoding: bytes, as: UTF8.self) }
        if let data = fields["NS.data"] as? Data { return data }
        if let time = fields["NS.time"] as? Double { return Date(timeIntervalSinceReferenceDate: time) }
        if let uuid = fields["NS.uuidbytes"] as? Data, uuid.count == 16 {
            return uuid.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        }
        // A URL's text is a string of its own; read one level only, so a URL that names itself
        // cannot make reading go round.
        if let relative = try self.index(fields["NS.relative"]), let text = objects[relative] as? String, let url = URL(string: text) {
            return url
        }
        return Object(index: index, fields: fields)
    }

    func string(_ field: Any?) throws(ModelError) -> String? {
        try value(field) as? String
    }

    /// The elements of an archived array, set or ordered set (`NS.objects`), unresolved.
    func elements(_ field: Any?) throws(ModelError) -> [Any] {
        guard let container = try object(field) else { return [] }
        if let elements = container.fields["NS.objects"] as? [Any] { return elements }
        throw ModelError("object \(container.index) (\(try className(of: container))) is not an array or set", at: source)
    }

    /// The entries of an archived dictionary, unresolved, in archive order. Core Data's
    /// known-keys dictionaries keep their values under `values` and their keys in a mapping
    /// strategy's `keys`, position by position.
    func entries(_ field: Any?) throws(ModelError) -> [(key: Any, value: Any)] {
        guard let container = try object(field) else { return [] }
        let keys: [Any], values: [Any]
        // A slot holding a known-keys dictionary's empty token has no entry.
        var empty: String?
        if let plainKeys = container.fields["NS.keys"] as? [Any], let plainValues = container.fields["NS.objects"] as? [Any] {
            (keys, values) = (plainKeys, plainValues)
        } else if container.fields["values"] != nil, let mapping = try object(container.fields["searchMapping"]) {
            (keys, values) = (try elements(mapping.fields["keys"]), try elements(container.fields["values"]))
            empty = try string(container.fields["emptyToken"])
        } else {
            throw ModelError("object \(container.index) (\(try className(of: container))) is not a dictionary", at: source)
        }
        guard keys.count == values.count else {
            throw ModelError("dictionary \(container.index) has \(keys.count) keys for \(values.count) values", at: source)
        }
        var result: [(key: Any, value: Any)] = []
        for (key, value) in zip(keys, values) {
            if let empty, try string(value) == empty { continue }
            result.append((key: key, value: value))
        }
        return result
    }

    /// A dictionary's entries with string keys and plain values, as user info holds them.
    func stringDictionary(_ field: Any?) throws(ModelError) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in try entries(field) {
            guard let key = try string(key) else { continue }
            switch try self.value(value) {
            case let text as String: result[key] = text
            case let number as Int: result[key] = String(number)
            case let number as Double: result[key] = String(number)
            case let flag as Bool: result[key] = flag ? "YES" : "NO"
            default: continue
            }
        }
        return result
    }

    /// How many objects unarchiving the whole archive meets: each once per reference to it, as
    /// Foundation's unarchiver and the bridging after it do. Throws for an object that holds
    /// itself (through others too), for nesting deeper than `maximumDepth`, and once the count
    /// passes `limit`: an archive sharing an array into itself, or 60 deep into a bomb, is a few
    /// objects but never ends for a reader that follows every reference. Walked with a stack, as
    /// an archive may chain objects deeper than recursion goes.
    func expandedCount(limit: Int, maximumDepth: Int = PropertyListReader.maximumDepth) throws(ModelError) -> Int {
        struct Frame {
            let index: Int
            let references: [Int]
            var next = 0
            var count = 1
        }
        var finished: [Int: Int] = [:]
        var open: Set<Int> = []
        var total = 0
        func frame(_ index: Int) throws(ModelError) -> Frame {
            guard index < objects.count else {
                throw ModelError("object reference \(index) is beyond the archive's \(objects.count) objects", at: source)
            }
            open.insert(index)
            return Frame(index: index, references: Self.references(in: objects[index]))
        }
        func add(_ count: Int, to sum: inout Int) throws(ModelError) {
            sum += count
            guard sum <= limit else { throw ModelError("the archive refers to its objects more than \(limit) times over", at: source) }
        }
        for start in Self.references(in: top) where finished[start] == nil {
            var stack = [try frame(start)]
            while var current = stack.popLast() {
                if current.next < current.references.count {
                    let reference = current.references[current.next]
                    current.next += 1
                    if let known = finished[reference] {
                        try add(known, to: &current.count)
                        stack.append(current)
                        continue
                    }
                    guard !open.contains(reference) else { throw ModelError("object \(reference) contains itself", at: source) }
                    guard stack.count < maximumDepth else {
                        throw ModelError("objects nested deeper than \(maximumDepth) levels", at: source)
                    }
                    stack.append(current)
                    stack.append(try frame(reference))
                    continue
                }
                open.remove(current.index)
                finished[current.index] = current.count
                if var parent = stack.popLast() {
                    try add(current.count, to: &parent.count)
                    stack.append(parent)
                } else {
                    try add(current.count, to: &total)
                }
            }
        }
        return total
    }

    /// The object references in a field's value, inside arrays and dictionaries too.
    private static func references(in value: Any) -> [Int] {
        switch value {
        case let uid as PropertyListUID: [Int(clamping: uid.value)]
        case let array as [Any]: array.flatMap(references)
        case let dictionary as [String: Any]: dictionary.values.flatMap(references)
        default: []
        }
    }

    /// The index a reference names, checked; `nil` for no reference or `$null` (entry 0).
    private func index(_ reference: Any?) throws(ModelError) -> Int? {
        guard let reference else { return nil }
        guard let uid = reference as? PropertyListUID else {
            throw ModelError("a \(type(of: reference)) where an object reference was expected", at: source)
        }
        guard uid.value < UInt64(objects.count) else {
            throw ModelError("object reference \(uid.value) is beyond the archive's \(objects.count) objects", at: source)
        }
        let index = Int(uid.value)
        if index == 0, objects[0] as? String == "$null" { return nil }
        return index
    }
}

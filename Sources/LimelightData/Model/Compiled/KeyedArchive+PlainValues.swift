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
    func holdsOnlyPlainValues() -> Bool {
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
                return false
            }
            // A class entry: a name and the classes it descends through.
            if fields["$classes"] != nil || fields["$classname"] != nil {
                guard let name = fields["$classname"] as? String, let chain = fields["$classes"] as? [Any],
                      chain.allSatisfy({ $0 is String }), Self.plainClasses[name] != nil else { return false }
                continue
            }
            guard let classReference = fields["$class"] as? PropertyListUID, exists(classReference.value),
                  let classFields = objects[Int(classReference.value)] as? [String: Any],
                  let name = classFields["$classname"] as? String, let shape = Self.plainClasses[name] else { return false }
            switch shape {
            case .elements:
                guard let elements = references(fields["NS.objects"]), elements.allSatisfy(exists) else { return false }
            case .dictionary:
                guard let keys = references(fields["NS.keys"]), let values = references(fields["NS.objects"]),
                      keys.count == values.count, (keys + values).allSatisfy(exists) else { return false }
            case .string:
                guard fields["NS.string"] is String || fields["NS.bytes"] is Data else { return false }
            case .date:
                guard fields["NS.time"] is Double || fields["NS.time"] is Int else { return false }
            case .data:
                guard fields["NS.data"] is Data else { return false }
            case .url:
                // An absolute URL, as archivers write one: a text no `URL` reads, or a base URL,
                // decodes into an object that traps when bridged.
                guard let relative = fields["NS.relative"] as? PropertyListUID, exists(relative.value),
                      let text = objects[Int(relative.value)] as? String, URL(string: text)?.scheme != nil,
                      (fields["NS.base"] as? PropertyListUID).map({ $0.value == 0 }) ?? true else { return false }
            case .uuid:
                guard (fields["NS.uuidbytes"] as? Data)?.count == 16 else { return false }
            case .none:
                continue
            }
        }
        // The roots: objects (or `$null`) of the archive.
        return top.values.allSatisfy { ($0 as? PropertyListUID).map { $0.value < UInt64(objects.count) } ?? false }
    }
}

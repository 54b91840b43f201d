import Foundation

/// The built-in functions of the format language, by selector name, evaluated in memory.
enum PredicateFunctions {
    /// Canonical selectors by the short names people write (`sqrt(x)`, `now()`, `sum:(…)`).
    static let selectors: [String: String] = {
        let names = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:", "sqrt:", "log:", "ln:",
                     "raise:toPower:", "exp:", "floor:", "ceiling:", "abs:", "trunc:", "uppercase:", "lowercase:", "canonical:",
                     "length:", "now", "random", "random:", "randomn:", "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:",
                     "leftshift:by:", "rightshift:by:", "onesComplement:", "add:to:", "from:subtract:", "multiply:by:",
                     "divide:by:", "modulus:by:", "noindex:", "indexed:by:", "distinct:", "castObject:toType:"]
        var table: [String: String] = [:]
        for name in names {
            table[name] = name
            let short = String(name.prefix { $0 != ":" })
            if table[short] == nil { table[short] = name }
        }
        table["average"] = "average:"
        return table
    }()

    static func selector(for name: String) -> String? { selectors[name] ?? selectors[name.lowercased()] }

    /// Functions of single values: a nil argument gives nil (as NULL does in SQL) rather than an error.
    static let nilPropagating: Set<String> = ["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:",
        "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "abs:", "trunc:", "bitwiseAnd:with:", "bitwiseOr:with:",
        "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "onesComplement:", "uppercase:", "lowercase:", "canonical:", "length:"]

    /// Infix spellings, so errors name the operand the way it was written.
    static let infixSymbols = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/",
                               "modulus:by:": "%%", "raise:toPower:": "**"]

    /// Which operand an error is about: "the left operand of +", "argument 2 of bitwiseAnd:with:".
    static func operandName(_ index: Int, of name: String) -> String {
        if let symbol = infixSymbols[name] { return "the \(index == 0 ? "left" : "right") operand of \(symbol)" }
        return "argument \(index + 1) of \(name)"
    }

    /// Calls the function; a NaN result (a domain error such as sqrt(-1)) is nil, as SQLite makes
    /// it NULL, so memory and SQL agree.
    static func evaluate(_ name: String, _ args: [Any?]) throws -> Any? {
        let result = try call(name, args)
        if let double = result as? Double, double.isNaN { return nil }
        return result
    }

    private static func call(_ name: String, _ args: [Any?]) throws -> Any? {
        if ["UNION", "INTERSECT", "MINUS"].contains(name) { return try setOperation(name, args) }
        if nilPropagating.contains(name), args.contains(where: { $0 == nil }) { return nil }
        func number(_ index: Int) throws -> Double {
            guard index < args.count else { throw PredicateEvaluationError("\(name) needs \(index + 1) arguments, got \(args.count)") }
            guard let value = args[index], let number = PredicateValues.double(value) else {
                throw PredicateEvaluationError("\(operandName(index, of: name)) must be a number, got \(PredicateValues.describe(args[index]))")
            }
            return number
        }
        func integer(_ index: Int) throws -> Int64 {
            guard index < args.count else { throw PredicateEvaluationError("\(name) needs \(index + 1) arguments, got \(args.count)") }
            guard let value = args[index], let double = PredicateValues.double(value) else {
                throw PredicateEvaluationError("\(operandName(index, of: name)) must be an integer, got \(PredicateValues.describe(args[index]))")
            }
            // Like SQLite, a real operand of an integer operator is truncated toward zero.
            if let exact = PredicateValues.integer(value) { return exact }
            guard double.isFinite, abs(double) < 9.2e18 else {
                throw PredicateEvaluationError("\(operandName(index, of: name)) is out of the 64-bit integer range")
            }
            return Int64(double.rounded(.towardZero))
        }
        /// Exact 64-bit arithmetic when both operands are integers, falling back to a double on
        /// overflow (what SQLite does).
        func arithmetic(_ exact: (Int64, Int64) -> (partialValue: Int64, overflow: Bool), _ real: (Double, Double) -> Double) throws -> Any {
            let a = try number(0), b = try number(1)
            if let x = args[0].flatMap(PredicateValues.exactInteger), let y = args[1].flatMap(PredicateValues.exactInteger) {
                let (value, overflow) = exact(x, y)
                if !overflow { return value }
            }
            return real(a, b)
        }
        func numbers() throws -> [Double] {
            let items = args.count == 1 ? (PredicateValues.elements(args[0]) ?? args) : args
            return try items.compactMap { item in
                guard let item else { return nil }
                guard let value = PredicateValues.double(item) else { throw PredicateEvaluationError("\(name) needs numbers, got \(item)") }
                return value
            }
        }
        func numeric(_ value: Double, like inputs: [Any?]) -> Any {
            inputs.allSatisfy({ $0 != nil && PredicateValues.integer($0!) != nil && !($0 is Double) && !($0 is Float) }) && value == value.rounded() && abs(value) < 9e18
                ? Int64(value) as Any : value as Any
        }
        switch name {
        case "add:to:": return try arithmetic({ $0.addingReportingOverflow($1) }, +)
        case "from:subtract:": return try arithmetic({ $0.subtractingReportingOverflow($1) }, -)
        case "multiply:by:": return try arithmetic({ $0.multipliedReportingOverflow(by: $1) }, *)
        case "divide:by:":
            // Division by zero has no value (SQLite gives NULL) rather than stopping the fetch.
            let dividend = try number(0), divisor = try number(1)
            return divisor == 0 ? nil : dividend / divisor
        case "modulus:by:":
            let dividend = try integer(0), divisor = try integer(1)
            guard divisor != 0 else { return nil }
            let (remainder, overflow) = dividend.remainderReportingOverflow(dividingBy: divisor)
            let result = overflow ? 0 : remainder
            // SQLite answers with a real when either operand is real.
            return args.allSatisfy({ $0.flatMap(PredicateValues.exactInteger) != nil }) ? result as Any : Double(result) as Any
        case "raise:toPower:": return pow(try number(0), try number(1))
        case "sum:": return numeric(try numbers().reduce(0, +), like: PredicateValues.elements(args.first ?? nil) ?? args)
        case "count:": return Int64((args.count == 1 ? PredicateValues.elements(args[0]) ?? args : args).count)
        case "min:", "max:":
            let items = (args.count == 1 ? (PredicateValues.elements(args[0]) ?? args) : args).compactMap { $0 }
            // Dates and strings have a least and a greatest too (`max:(modified)` in a dictionary fetch).
            if items.contains(where: { !PredicateValues.isNumber($0) }) { return try extreme(items, greatest: name == "max:") }
            return name == "min:" ? try numbers().min() : try numbers().max()
        case "average:":
            let values = try numbers()
            return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
        case "median:":
            let values = try numbers().sorted()
            guard !values.isEmpty else { return nil }
            return values.count % 2 == 1 ? values[values.count / 2] : (values[values.count / 2 - 1] + values[values.count / 2]) / 2
        case "mode:":
            let values = try numbers()
            let counts = Dictionary(values.map { ($0, 1) }, uniquingKeysWith: +)
            let best = counts.values.max() ?? 0
            return counts.filter { $0.value == best }.keys.sorted()
        case "stddev:":
            let values = try numbers()
            guard !values.isEmpty else { return nil }
            let mean = values.reduce(0, +) / Double(values.count)
            return sqrt(values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count))
        case "sqrt:": return sqrt(try number(0))
        case "log:": return log10(try number(0))
        case "ln:": return log(try number(0))
        case "exp:": return exp(try number(0))
        case "floor:": return floor(try number(0))
        case "ceiling:": return ceil(try number(0))
        case "abs:":
            if let exact = args[0].flatMap(PredicateValues.exactInteger), exact != .min { return abs(exact) }
            return abs(try number(0))
        case "trunc:": return trunc(try number(0))
        case "uppercase:": return (args.first ?? nil).map { "\($0)".uppercased() }
        case "lowercase:": return (args.first ?? nil).map { "\($0)".lowercased() }
        // Core Data's form for searching without regard to case or accents, as derived attributes
        // keep it: folded as `[cd]` comparisons fold.
        case "canonical:": return (args.first ?? nil).map { StringFolding.fold("\($0)", caseInsensitive: true, diacriticInsensitive: true) }
        case "length:":
            guard let value = args.first ?? nil else { return nil }
            // Unicode scalars, which is what SQLite's length() counts.
            if let string = value as? String { return Int64(string.unicodeScalars.count) }
            if let items = PredicateValues.elements(value) { return Int64(items.count) }
            return Int64("\(value)".unicodeScalars.count)
        case "now": return Date()
        case "random": return Double.random(in: 0..<1)
        case "random:", "randomn:": return Int64.random(in: 0..<max(1, try integer(0)))
        case "FUNCTION":
            throw PredicateEvaluationError("FUNCTION(…) calls an Objective-C method, which does not exist here; use a built-in function")
        case "bitwiseAnd:with:": return try integer(0) & integer(1)
        case "bitwiseOr:with:": return try integer(0) | integer(1)
        case "bitwiseXor:with:": return try integer(0) ^ integer(1)
        case "leftshift:by:": return try integer(0) << integer(1)
        case "rightshift:by:": return try integer(0) >> integer(1)
        case "onesComplement:": return ~(try integer(0))
        case "noindex:": return args.first ?? nil
        // Names an R-tree fetch index for the store to search by; in memory, the value itself.
        case "indexed:by:": return args.first ?? nil
        case "distinct:":
            var seen: [Any?] = []
            for item in PredicateValues.elements(args.first ?? nil) ?? [] where !seen.contains(where: { PredicateValues.equal($0, item, options: []) }) {
                seen.append(item)
            }
            return seen
        case "CAST", "castObject:toType:":
            guard args.count == 2, let type = args[1] as? String else { throw PredicateEvaluationError("CAST needs a value and a type name") }
            return try cast(args[0], to: type)
        default:
            throw PredicateEvaluationError("unknown function \(name)")
        }
    }

    /// The least or greatest of values that order among themselves (dates, strings), as SQL's min and max.
    private static func extreme(_ items: [Any], greatest: Bool) throws -> Any? {
        var best: Any?
        for item in items {
            guard let current = best else { best = item; continue }
            guard let order = PredicateValues.compare(item, current, options: []) else {
                throw PredicateEvaluationError("\(greatest ? "max:" : "min:") cannot order \(PredicateValues.describe(item)) against \(PredicateValues.describe(current))")
            }
            if order == (greatest ? .orderedDescending : .orderedAscending) { best = item }
        }
        return best
    }

    /// Reads a date written as NSDate describes itself: `2024-03-04 10:00:00 +0000`. A formatter
    /// per call, as such casts are rare and formatters are not safe to share across threads.
    static func dateFromDescription(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }

    /// `a UNION b`, `a INTERSECT b`, `a MINUS b` of two collections (nil is an empty one), each
    /// value once, in the order first met, compared as `==` compares them.
    static func setOperation(_ name: String, _ args: [Any?]) throws -> [Any?] {
        guard args.count == 2 else { throw PredicateEvaluationError("\(name) needs two collections, got \(args.count) operands") }
        let sides = try args.enumerated().map { index, value -> [Any?] in
            guard let value else { return [] }
            guard !(value is String), let items = PredicateValues.elements(value) else {
                throw PredicateEvaluationError("the \(index == 0 ? "left" : "right") operand of \(name) must be a collection, got \(PredicateValues.describe(value))")
            }
            return items
        }
        func contains(_ items: [Any?], _ item: Any?) -> Bool { items.contains { PredicateValues.equal($0, item, options: []) } }
        let candidates = name == "UNION" ? sides[0] + sides[1] : sides[0]
        var result: [Any?] = []
        for item in candidates where !contains(result, item) {
            switch name {
            case "INTERSECT": if contains(sides[1], item) { result.append(item) }
            case "MINUS": if !contains(sides[1], item) { result.append(item) }
            default: result.append(item)
            }
        }
        return result
    }

    static func cast(_ value: Any?, to type: String) throws -> Any? {
        guard let value else { return nil }
        switch type {
        case "NSDate", "Date":
            if let date = value as? Date { return date }
            if let text = value as? String, Double(text) == nil {
                // NSDate's description form, which apps write into predicates by hand:
                // CAST('2024-03-04 00:00:00 +0000', 'NSDate').
                guard let date = Self.dateFromDescription(text) else {
                    throw PredicateEvaluationError("CAST to NSDate needs seconds since 2001-01-01 or a date written "
                                                   + "'YYYY-MM-DD HH:MM:SS ±HHMM', got '\(text)'")
                }
                return date
            }
            guard let seconds = PredicateValues.double(value) ?? (value as? String).flatMap(Double.init) else {
                throw PredicateEvaluationError("CAST to NSDate needs seconds since 2001-01-01, got \(value)")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case "NSNumber", "Number":
            if let date = value as? Date { return date.timeIntervalSinceReferenceDate }
            if let string = value as? String { return Int64(string) as Any? ?? Double(string) }
            return value
        case "NSString", "String":
            if let date = value as? Date { return String(date.timeIntervalSinceReferenceDate) }
            return "\(value)"
        // The forms the printer writes constants in that have no literal, so they read back as
        // themselves: CAST("…", "NSUUID"), CAST("<base64>", "NSData"), CAST("…", "NSURL").
        case "NSUUID", "UUID":
            if let uuid = value as? UUID { return uuid }
            guard let text = value as? String, let uuid = UUID(uuidString: text) else {
                throw PredicateEvaluationError("CAST to NSUUID needs a UUID string such as 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F', got \(value)")
            }
            return uuid
        case "NSData", "Data":
            if let data = value as? Data { return data }
            guard let text = value as? String, let data = Data(base64Encoded: text) else {
                throw PredicateEvaluationError("CAST to NSData needs the bytes in base64, got \(value)")
            }
            return data
        case "NSURL", "URL":
            if let url = value as? URL { return url }
            guard let text = value as? String, let url = URL(string: text) else {
                throw PredicateEvaluationError("CAST to NSURL needs a URL string, got \(value)")
            }
            return url
        default:
            throw PredicateEvaluationError("CAST to '\(type)' is not supported (use NSDate, NSNumber, NSString, NSUUID, NSData or NSURL)")
        }
    }
}

/// A predicate that cannot be evaluated against the given values.
public struct PredicateEvaluationError: Error, CustomStringConvertible, Equatable {
    public var description: String
    init(_ description: String) { self.description = description }
}

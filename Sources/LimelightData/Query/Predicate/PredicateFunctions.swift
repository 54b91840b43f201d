import Foundation

/// The built-in functions of the format language, by selector name, evaluated in memory.
enum PredicateFunctions {
    /// Canonical selectors by the short names people write (`sqrt(x)`, `now()`, `sum:(…)`).
    static let selectors: [String: String] = {
        let names = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:", "sqrt:", "log:", "ln:",
                     "raise:toPower:", "exp:", "floor:", "ceiling:", "abs:", "trunc:", "uppercase:", "lowercase:", "length:",
                     "now", "random", "random:", "randomn:", "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:",
                     "leftshift:by:", "rightshift:by:", "onesComplement:", "add:to:", "from:subtract:", "multiply:by:",
                     "divide:by:", "modulus:by:", "noindex:", "distinct:", "castObject:toType:"]
        var table: [String: String] = [:]
        for name in names {
            table[name] = name
            table[String(name.prefix { $0 != ":" })] = name
        }
        table["average"] = "average:"
        return table
    }()

    static func selector(for name: String) -> String? { selectors[name] ?? selectors[name.lowercased()] }

    /// Functions of single values: a nil argument gives nil (as NULL does in SQL) rather than an error.
    static let nilPropagating: Set<String> = ["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:",
        "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "abs:", "trunc:", "bitwiseAnd:with:", "bitwiseOr:with:",
        "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "onesComplement:", "uppercase:", "lowercase:", "length:"]

    static func evaluate(_ name: String, _ args: [Any?]) throws -> Any? {
        if nilPropagating.contains(name), args.contains(where: { $0 == nil }) { return nil }
        func number(_ index: Int) throws -> Double {
            guard index < args.count, let value = args[index], let number = PredicateValues.double(value) else {
                throw PredicateEvaluationError("\(name) needs a number as argument \(index + 1), got \(index < args.count ? String(describing: args[index] ?? "nil") : "nothing")")
            }
            return number
        }
        func integer(_ index: Int) throws -> Int64 {
            guard index < args.count, let value = args[index], let number = PredicateValues.integer(value) else {
                throw PredicateEvaluationError("\(name) needs an integer as argument \(index + 1)")
            }
            return number
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
        case "add:to:": return numeric(try number(0) + number(1), like: args)
        case "from:subtract:": return numeric(try number(0) - number(1), like: args)
        case "multiply:by:": return numeric(try number(0) * number(1), like: args)
        case "divide:by:":
            let divisor = try number(1)
            guard divisor != 0 else { throw PredicateEvaluationError("divide:by: divides by zero") }
            return try number(0) / divisor
        case "modulus:by:":
            let divisor = try integer(1)
            guard divisor != 0 else { throw PredicateEvaluationError("modulus:by: divides by zero") }
            return try integer(0) % divisor
        case "raise:toPower:": return pow(try number(0), try number(1))
        case "sum:": return numeric(try numbers().reduce(0, +), like: PredicateValues.elements(args.first ?? nil) ?? args)
        case "count:": return Int64((args.count == 1 ? PredicateValues.elements(args[0]) ?? args : args).count)
        case "min:": return try numbers().min()
        case "max:": return try numbers().max()
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
        case "abs:": return numeric(abs(try number(0)), like: args)
        case "trunc:": return trunc(try number(0))
        case "uppercase:": return (args.first ?? nil).map { "\($0)".uppercased() }
        case "lowercase:": return (args.first ?? nil).map { "\($0)".lowercased() }
        case "length:":
            guard let value = args.first ?? nil else { return nil }
            return Int64((value as? String)?.count ?? PredicateValues.elements(value)?.count ?? 0)
        case "now": return Date()
        case "random": return Double.random(in: 0..<1)
        case "random:", "randomn:": return Int64.random(in: 0..<max(1, try integer(0)))
        case "bitwiseAnd:with:": return try integer(0) & integer(1)
        case "bitwiseOr:with:": return try integer(0) | integer(1)
        case "bitwiseXor:with:": return try integer(0) ^ integer(1)
        case "leftshift:by:": return try integer(0) << integer(1)
        case "rightshift:by:": return try integer(0) >> integer(1)
        case "onesComplement:": return ~(try integer(0))
        case "noindex:": return args.first ?? nil
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

    static func cast(_ value: Any?, to type: String) throws -> Any? {
        guard let value else { return nil }
        switch type {
        case "NSDate", "Date":
            if let date = value as? Date { return date }
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
        default:
            throw PredicateEvaluationError("CAST to '\(type)' is not supported (use NSDate, NSNumber or NSString)")
        }
    }
}

/// A predicate that cannot be evaluated against the given values.
public struct PredicateEvaluationError: Error, CustomStringConvertible, Equatable {
    public var description: String
    init(_ description: String) { self.description = description }
}

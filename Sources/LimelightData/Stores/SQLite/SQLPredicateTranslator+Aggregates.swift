import Foundation

extension SQLPredicateTranslator {
    /// SQL aggregate per aggregate selector of the predicate language; `median:`, `mode:` and
    /// `stddev:` are aggregates this store registers with SQLite.
    static let sqlAggregates = ["sum:": "sum", "count:": "count", "min:": "min", "max:": "max", "average:": "avg",
                                "median:": "LL_MEDIAN", "mode:": "LL_MODE", "stddev:": "LL_STDDEV"]

    /// What only dictionary fetches say: a result column named in a HAVING predicate (`count > 1`
    /// or `$count > 1`) and aggregate functions. `nil` lets the ordinary translation run.
    mutating func resultOperand(_ expression: QueryExpression, _ scope: Scope) throws -> Operand? {
        switch expression {
        case .variable(let name) where scope.variables[name] == nil:
            return resultColumns[name]
        case .keyPath(let name) where scope.alias == "t0":
            return resultColumns[name]
        case .function(let name, let arguments) where allowsAggregates:
            guard let function = Self.sqlAggregates[name] else { return nil }
            if name == "count:", arguments.isEmpty || arguments == [.evaluatedObject] {
                return Operand(sql: "count(*)")
            }
            guard arguments.count == 1 else { throw Self.unsupported("\(name) takes one argument, got \(arguments.count)") }
            let argument = try operand(arguments[0], scope)
            if argument.toMany != nil {
                throw Self.unsupported("\(name) of the to-many key path \(PredicatePrinter.format(arguments[0])) in a dictionary fetch")
            }
            var result = Operand(sql: "\(function)(\(argument.sql))", bindings: argument.bindings)
            if name == "min:" || name == "max:" || name == "mode:" { result.attribute = argument.attribute }
            return result
        default:
            return nil
        }
    }
}

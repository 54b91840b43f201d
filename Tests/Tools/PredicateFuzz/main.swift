// Throws random and mutated format strings at the predicate parser for a while, checking that
// every input gives a predicate or a PredicateParseError, that printed predicates read back to
// the same predicate, that evaluation gives a value or a PredicateEvaluationError, and that
// generated predicates return the same objects from SQL as from memory.
//
//     limelight-predicate-fuzz [--seconds N | --iterations N] [--seed N]
import Foundation
import PredicateFixtures
import LimelightData

struct Options {
    var seconds: Double?
    var iterations: Int?
    var seed = UInt64(UInt32.random(in: 0...UInt32.max))

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            switch flag {
            case "--seconds": seconds = Double(value)
            case "--iterations": iterations = Int(value)
            case "--seed": seed = UInt64(value) ?? seed
            default: throw UsageError(message: "unknown option \(flag)")
            }
            if (flag == "--seconds" && seconds == nil) || (flag == "--iterations" && iterations == nil) {
                throw UsageError(message: "\(flag) needs a number, got \(value)")
            }
        }
        if seconds == nil && iterations == nil { seconds = 60 }
    }
}

struct UsageError: Error { var message: String }

struct Counts {
    var tried = 0, parsed = 0, roundTrips = 0, evaluated = 0, sqlAgreed = 0, sqlRefused = 0
    var failures: [String] = []
}

nonisolated(unsafe) let sample: [String: Any?] = [
    "name": "Crème brûlée", "score": 42, "price": 2.5, "flag": true, "nickname": nil, "tags": ["red", "Blue"],
    "scores": [1, 5, 8], "created": Date(timeIntervalSinceReferenceDate: 10), "owner": ["name": "Ann"] as [String: Any],
]

func check(_ text: String, arguments: [Any?], counts: inout Counts, mustParse: Bool) -> QueryPredicate? {
    counts.tried += 1
    let predicate: QueryPredicate
    do {
        predicate = try QueryPredicate(format: text, argumentArray: arguments)
    } catch is PredicateParseError {
        if mustParse { counts.failures.append("generated predicate does not parse: \(text.debugDescription)") }
        return nil
    } catch {
        counts.failures.append("\(text.debugDescription): \(type(of: error)) instead of PredicateParseError")
        return nil
    }
    counts.parsed += 1
    let printed = predicate.predicateFormat
    do {
        let reparsed = try QueryPredicate(format: printed)
        if reparsed == predicate || reparsed.predicateFormat == printed {
            counts.roundTrips += 1
        } else {
            counts.failures.append("\(text.debugDescription) printed as \(printed.debugDescription) reads back differently")
        }
    } catch {
        counts.failures.append("\(text.debugDescription) printed as \(printed.debugDescription), which does not parse: \(error)")
    }
    do {
        _ = try predicate.evaluate(with: sample, substitutionVariables: ["x": 1])
        counts.evaluated += 1
    } catch is PredicateEvaluationError {
        counts.evaluated += 1
    } catch {
        counts.failures.append("\(text.debugDescription): evaluation threw \(type(of: error))")
    }
    return predicate
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    var random = SeededGenerator(seed: options.seed)
    let store = try FuzzStore(seed: options.seed)
    var grammar = FuzzGrammar(random: SeededGenerator(seed: options.seed ^ 0x5EED))
    var counts = Counts()
    let start = Date()
    let arguments: [Any?] = ["name", 42, [1, 2], "x", 2.5, nil]
    func done() -> Bool {
        if let limit = options.iterations { return counts.tried >= limit }
        return Date().timeIntervalSince(start) >= options.seconds ?? 0
    }
    while !done() && counts.failures.count < 20 {
        switch counts.tried % 8 {
        case 0: _ = check(FuzzInputs.randomBytes(&random), arguments: arguments, counts: &counts, mustParse: false)
        case 1, 2: _ = check(FuzzInputs.tokenSoup(&random), arguments: arguments, counts: &counts, mustParse: false)
        case 3, 4, 5: _ = check(FuzzInputs.mutation(of: random.pick(FuzzInputs.seeds), &random), arguments: arguments, counts: &counts, mustParse: false)
        default:
            let text = grammar.predicate()
            guard let predicate = check(text, arguments: [], counts: &counts, mustParse: true) else { continue }
            switch store.compare(predicate) {
            case .agreed: counts.sqlAgreed += 1
            case .refusedBySQL: counts.sqlRefused += 1
            case .mismatch(let why): counts.failures.append("\(text.debugDescription): \(why)")
            }
        }
    }
    let elapsed = Date().timeIntervalSince(start)
    print("seed \(options.seed): \(counts.tried) inputs in \(String(format: "%.1f", elapsed)) s (\(Int(Double(counts.tried) / max(elapsed, 0.001)))/s)")
    print("parsed \(counts.parsed), round trips \(counts.roundTrips), evaluated \(counts.evaluated), SQL agreed with memory \(counts.sqlAgreed), refused by SQL \(counts.sqlRefused)")
    for failure in counts.failures { print("FAILURE \(failure)") }
    // exit() skips deinitializers, so the store's folder goes now.
    try? FileManager.default.removeItem(at: store.folder)
    exit(counts.failures.isEmpty ? 0 : 1)
} catch let error as UsageError {
    FileHandle.standardError.write(Data("limelight-predicate-fuzz: \(error.message)\nusage: limelight-predicate-fuzz [--seconds N | --iterations N] [--seed N]\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("limelight-predicate-fuzz: \(error)\n".utf8))
    exit(1)
}

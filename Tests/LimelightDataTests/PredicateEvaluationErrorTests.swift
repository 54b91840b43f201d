import Foundation
import Testing
@testable import LimelightData

/// Predicates that parse but cannot be evaluated: each error says which operand or which key.
@Suite struct PredicateEvaluationErrorTests {
    static let mismatches: [(String, String)] = [
        ("name BEGINSWITH 1", "the right operand of BEGINSWITH must be a string, got a number (1)"),
        ("age BEGINSWITH 'a'", "the left operand of BEGINSWITH must be a string, got a number (42)"),
        ("age ENDSWITH 'a'", "the left operand of ENDSWITH"), ("age LIKE 'a*'", "the left operand of LIKE"),
        ("name LIKE 1", "the right operand of LIKE"), ("age CONTAINS 'a'", "the left operand of CONTAINS must be a string or a collection"),
        ("'a' IN age", "the right operand of IN must be a string or a collection"), ("age MATCHES 'x'", "the left operand of MATCHES"),
        ("name MATCHES 3", "the right operand of MATCHES must be a pattern string"),
        ("age < 'x'", "< cannot order the left operand, a number (42), against the right operand, a string (\"x\")"),
        ("name > 3", "> cannot order the left operand, a string"), ("born <= 5", "the left operand, a date"),
        ("active >= 'yes'", "the left operand, a Boolean (YES)"), ("age BETWEEN {'a', 'z'}", "BETWEEN cannot order"),
        ("age BETWEEN 3", "BETWEEN needs {low, high} as its right operand, got a number (3)"),
        ("name + 1 == 2", "the left operand of + must be a number, got a string"), ("1 - name == 2", "the right operand of - must be a number"),
        ("age * 'x' == 1", "the right operand of *"), ("name / 2 == 1", "the left operand of /"), ("2 ** name == 1", "the right operand of **"),
        ("age %% name == 1", "the right operand of %% must be an integer"), ("sqrt(name) == 1", "argument 1 of sqrt: must be a number"),
        ("bitwiseAnd:with:(1, name) == 1", "argument 2 of bitwiseAnd:with: must be an integer"),
        ("sum:({1, 'x'}) == 1", "sum: needs numbers"), ("code MATCHES '('", "'(' is not a valid regular expression"),
        ("$UNDEFINED == 1", "no value for the variable $UNDEFINED"), ("FUNCTION(age, 'abs') == 1", "Objective-C"),
        ("CAST(name, 'NSDate') == nil", "CAST to NSDate needs seconds since 2001-01-01"), ("CAST(age, 'NSWidget') == 1", "NSWidget"),
        ("ANY scores < 'x'", "cannot order the left operand, a number (3)"), ("friends.@frobnicate.age == 1", "unknown collection operator @frobnicate"),
    ]

    @Test(arguments: mismatches.indices)
    func mismatchesNameTheOperand(_ index: Int) throws {
        let (format, message) = Self.mismatches[index]
        let predicate = try QueryPredicate(format: format)
        #expect { try predicate.evaluate(with: PredicateTableCase.sample) } throws: { error in
            error is PredicateEvaluationError && "\(error)".contains(message)
        }
    }

    @Test func unknownKeysOnManagedObjectsNameTheEntity() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let photo = try context.insertNewObject(forEntityName: "Photo")
        photo.setValue("Beach", forKey: "name")
        let person = try context.insertNewObject(forEntityName: "Person")
        person.setValue("Ann", forKey: "firstName")
        photo.setValue(person, forKey: "photographer")
        try context.save()
        #expect(try QueryPredicate(format: "name == 'Beach' AND photographer.firstName == 'Ann'").evaluate(with: photo))
        for (format, message) in [("colour == 'red'", "entity Photo has no property 'colour'"),
                                  ("photographer.age > 3", "entity Person has no property 'age'"),
                                  ("ANY photographer.photos.colour > 1", "entity Photo has no property 'colour'")] {
            let predicate = try QueryPredicate(format: format)
            #expect { try predicate.evaluate(with: photo) } throws: { "\($0)".contains(message) }
            let request = FetchRequest<ManagedObject>(entityName: "Photo", predicate: predicate)
            #expect { try context.fetch(request) } throws: { "\($0)".contains(message) }
        }
    }
}

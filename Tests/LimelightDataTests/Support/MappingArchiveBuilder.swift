import Foundation
@testable import LimelightData

/// Writes a keyed archive of an `NSMappingModel` as Xcode compiles one into a `.cdm` file: Core
/// Data's classes and keys, expressions as archived `NSExpression` objects.
struct MappingArchiveBuilder {
    private var objects: [Any] = ["$null"]
    private var classes: [String: PropertyListUID] = [:]

    mutating func add(_ value: Any) -> PropertyListUID {
        objects.append(value)
        return PropertyListUID(UInt64(objects.count - 1))
    }

    mutating func object(_ className: String, _ fields: [String: Any]) -> PropertyListUID {
        var fields = fields
        if classes[className] == nil { classes[className] = add(["$classname": className, "$classes": [className, "NSObject"]] as [String: Any]) }
        fields["$class"] = classes[className]
        return add(fields)
    }

    mutating func array(_ items: [PropertyListUID]) -> PropertyListUID { object("NSArray", ["NS.objects": items]) }

    mutating func dictionary(_ entries: [String: String]) -> PropertyListUID {
        let keys = entries.keys.sorted()
        return object("NSDictionary", ["NS.keys": keys.map { add($0) }, "NS.objects": keys.map { add(entries[$0] ?? "") }])
    }

    // MARK: Expressions

    mutating func variable(_ name: String) -> PropertyListUID {
        object("NSVariableExpression", ["NSVariable": add(name), "NSExpressionType": 2])
    }

    mutating func constant(_ value: Any) -> PropertyListUID {
        object("NSConstantValueExpression", ["NSConstantValue": add(value), "NSExpressionType": 0])
    }

    /// `$variable.key`: `valueForKeyPath:` sent to the variable.
    mutating func keyPath(_ key: String, of variable: String) -> PropertyListUID {
        let operand = self.variable(variable)
        let path = object("NSKeyPathSpecifierExpression", ["NSKeyPath": add(key), "NSExpressionType": 10])
        return object("NSKeyPathExpression", ["NSOperand": operand, "NSSelectorName": add("valueForKeyPath:"),
                                              "NSArguments": array([path]), "NSExpressionType": 3])
    }

    /// `FUNCTION(operand, "selector", arguments…)`.
    mutating func function(_ operand: PropertyListUID, _ selector: String, _ arguments: [PropertyListUID]) -> PropertyListUID {
        object("NSFunctionExpression", ["NSOperand": operand, "NSSelectorName": add(selector), "NSArguments": array(arguments),
                                        "NSExpressionType": 4])
    }

    /// A built-in function such as `divide:by:`, sent to the class that computes them.
    mutating func builtIn(_ selector: String, _ arguments: [PropertyListUID]) -> PropertyListUID {
        let utilities = object("NSConstantValueExpression", ["NSConstantValueClassName": add("_NSPredicateUtilities"), "NSExpressionType": 0])
        return function(utilities, selector, arguments)
    }

    /// Xcode's source expression: every object of `entity` the predicate selects.
    mutating func fetch(_ entity: String, _ predicate: String) -> PropertyListUID {
        let manager = variable("manager")
        let request = function(manager, "fetchRequestForSourceEntityNamed:predicateString:", [constant(entity), constant(predicate)])
        return object("NSFetchRequestExpression", ["NSFRExpression": request, "NSMOCExpression": keyPath("sourceContext", of: "manager"),
                                                   "NSCountOnlyFlag": false, "NSExpressionType": 50])
    }

    // MARK: Mappings

    mutating func propertyMapping(_ name: String, _ expression: PropertyListUID?, userInfo: [String: String]? = nil) -> PropertyListUID {
        var fields: [String: Any] = ["NSDestinationPropertyName": add(name)]
        if let expression { fields["NSValueExpression"] = expression }
        if let userInfo { fields["NSUserInfo"] = dictionary(userInfo) }
        return object("NSPropertyMapping", fields)
    }

    /// The archive, with `mappings` (fields of `NSEntityMapping` objects) as the model's.
    mutating func data(mappings: [[String: Any]]) throws -> Data {
        let references = mappings.map { object("NSEntityMapping", $0) }
        let root = object("NSMappingModel", ["NSEntityMappings": array(references)])
        let plist: [String: Any] = ["$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": root], "$objects": objects]
        return try PropertyListWriter.data(plist, format: .binary)
    }
}

extension SplitVersions {
    /// The mapping of `mapping(personPolicy:)` as Xcode would compile it, its policies named as a
    /// Mac app's module names them, the entities' version hashes recorded.
    static func compiledMapping() throws -> Data {
        var archive = MappingArchiveBuilder()
        let v1 = version1(), v2 = version2()
        try v1.resolve()
        try v2.resolve()
        func names(_ source: String?, _ destination: String?, _ type: EntityMappingType, _ name: String) -> [String: Any] {
            var fields: [String: Any] = ["NSMappingName": archive.add(name), "NSMappingType": type.rawValue]
            if let source, let hash = v1.entity(named: source)?.versionHash {
                fields["NSSourceEntityName"] = archive.add(source)
                fields["NSSourceEntityVersionHash"] = archive.add(hash)
            }
            if let destination, let hash = v2.entity(named: destination)?.versionHash {
                fields["NSDestinationEntityName"] = archive.add(destination)
                fields["NSDestinationEntityVersionHash"] = archive.add(hash)
            }
            return fields
        }
        // Each argument is built before the call that takes it: one mutation of the builder at a time.
        var people = names("Person", "Person", .custom, "PersonToPerson")
        people["NSEntityMigrationPolicyClassName"] = archive.add("SplitApp.AddressPolicy")
        people["NSSourceExpression"] = archive.fetch("Person", "TRUEPREDICATE")
        let personName = archive.keyPath("name", of: "source")
        let personNameMapping = archive.propertyMapping("name", personName)
        people["NSAttributeMappings"] = archive.array([personNameMapping])
        let manager1 = archive.variable("manager"), noteMappingName = archive.constant("NoteToNote")
        let sourceNotes = archive.keyPath("notes", of: "source")
        let notesValue = archive.function(manager1, "destinationInstancesForEntityMappingNamed:sourceInstances:", [noteMappingName, sourceNotes])
        let notesMapping = archive.propertyMapping("notes", notesValue)
        people["NSRelationshipMappings"] = archive.array([notesMapping])
        people["NSUserInfo"] = archive.dictionary(["splits": "address"])

        var notes = names("Note", "Note", .transform, "NoteToNote")
        notes["NSEntityMigrationPolicyClassName"] = archive.add("ShoutPolicy")
        notes["NSSourceExpression"] = archive.fetch("Note", "TRUEPREDICATE")
        let text = archive.keyPath("text", of: "source"), textMapping = archive.propertyMapping("text", text)
        let policy = archive.variable("entityPolicy"), shoutText = archive.keyPath("text", of: "source")
        let shout = archive.function(policy, "shout:", [shoutText])
        let shoutMapping = archive.propertyMapping("shout", shout, userInfo: ["computed": "yes"])
        notes["NSAttributeMappings"] = archive.array([textMapping, shoutMapping])
        let manager2 = archive.variable("manager"), personMappingName = archive.constant("PersonToPerson")
        let sourceAuthor = archive.keyPath("author", of: "source")
        let authorValue = archive.function(manager2, "destinationInstancesForEntityMappingNamed:sourceInstances:", [personMappingName, sourceAuthor])
        let authorMapping = archive.propertyMapping("author", authorValue)
        notes["NSRelationshipMappings"] = archive.array([authorMapping])

        var products = names("Product", "Product", .transform, "ProductToProduct")
        products["NSSourceExpression"] = archive.fetch("Product", "priceInCents > 0")
        let productName = archive.keyPath("name", of: "source"), productNameMapping = archive.propertyMapping("name", productName)
        let cents = archive.keyPath("priceInCents", of: "source"), hundred = archive.constant(100.0)
        let price = archive.builtIn("divide:by:", [cents, hundred]), priceMapping = archive.propertyMapping("price", price)
        products["NSAttributeMappings"] = archive.array([productNameMapping, priceMapping])
        let addresses = names(nil, "Address", .add, "Address")
        return try archive.data(mappings: [people, notes, products, addresses])
    }
}

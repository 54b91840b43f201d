import Foundation
import LimelightData

/// A property as it is declared in Swift: its name (checked) and type.
struct PlannedProperty: Equatable {
    /// What a to-many relationship holds, for its accessors.
    enum ToMany: Equatable {
        case set(destination: String)
        case ordered(destination: String)
    }

    /// The property's name in the model, which is also its key.
    let name: String
    /// The Swift type, as written in the declaration.
    let type: String
    /// Set for a to-many relationship.
    var toMany: ToMany? = nil
}

/// The Swift type Xcode's code generation picks for each kind of property, in this framework's
/// types: scalars when the model asks for them, optionals otherwise, `Set`s and arrays of the
/// destination's class for to-many relationships.
struct SwiftTypeMapping {
    /// The Swift class of each entity that has one, by entity name.
    let classNames: [String: String]

    /// Names `ManagedObject` uses for its own members: a property so named would clash with them.
    static let reservedPropertyNames: Set<String> = [
        "entity", "objectID", "managedObjectContext", "description", "hashValue", "isInserted", "isDeleted",
        "isUpdated", "isFault", "hasChanges", "hasPersistentChangedValues", "faultingState", "changedValues",
        "committedValues", "values", "debugDescription",
    ]

    /// Types the declarations name, which a class of the same name would hide: with such a class
    /// in the model they are written with their module (`Foundation.Date`).
    private static let modules: [String: String] = [
        "Int16": "Swift", "Int32": "Swift", "Int64": "Swift", "Double": "Swift", "Float": "Swift", "Bool": "Swift",
        "String": "Swift", "Set": "Swift", "Any": "Swift", "Date": "Foundation", "Data": "Foundation",
        "Decimal": "Foundation", "UUID": "Foundation", "URL": "Foundation", "TimeInterval": "Foundation",
        "ManagedObjectID": "LimelightData",
    ]

    /// Objective-C classes a transformable's `customClassName` often names, as Swift spells
    /// those values.
    private static let bridgedClassNames: [String: String] = [
        "NSArray": "[Any]", "NSDictionary": "[AnyHashable: Any]", "NSSet": "Set<AnyHashable>", "NSString": "String",
        "NSData": "Data", "NSDate": "Date", "NSURL": "URL", "NSUUID": "UUID", "NSDecimalNumber": "Decimal", "id": "Any",
    ]

    /// `name`, with its module when a class of the model would hide it.
    func typeName(_ name: String) -> String {
        guard let module = Self.modules[name], Set(classNames.values).contains(name) else { return name }
        return "\(module).\(name)"
    }

    /// The declaration for `property` in the class of `entity`; `nil` for properties classes do
    /// not declare (fetched properties, which Xcode leaves out as well).
    func property(_ property: PropertyDescription, of entity: EntityDescription) throws -> PlannedProperty? {
        let type: String
        switch property {
        case let attribute as AttributeDescription: type = attributeType(attribute)
        case let relationship as RelationshipDescription: type = relationshipType(relationship)
        default: return nil
        }
        guard SwiftNames.isIdentifier(property.name) else {
            throw ClassGenerationError(entity: entity.name, "property '\(property.name)' is not a Swift identifier")
        }
        guard !Self.reservedPropertyNames.contains(property.name) else {
            throw ClassGenerationError(entity: entity.name, "property '\(property.name)' has the name of ManagedObject's own \(property.name); rename it in the model")
        }
        var toMany: PlannedProperty.ToMany?
        if let relationship = property as? RelationshipDescription, relationship.isToMany {
            let destination = destinationClass(relationship)
            toMany = relationship.isOrdered ? .ordered(destination: destination) : .set(destination: destination)
        }
        return PlannedProperty(name: property.name, type: type, toMany: toMany)
    }

    func attributeType(_ attribute: AttributeDescription) -> String {
        let scalar: String?
        switch attribute.attributeType {
        case .integer16: scalar = "Int16"
        case .integer32: scalar = "Int32"
        case .integer64: scalar = "Int64"
        case .double: scalar = "Double"
        case .float: scalar = "Float"
        case .boolean: scalar = "Bool"
        default: scalar = nil
        }
        if let scalar {
            return typeName(scalar) + (attribute.usesScalarValueType ? "" : "?")
        }
        switch attribute.attributeType {
        case .string: return typeName("String") + "?"
        // Xcode declares a scalar date as the seconds since the reference date.
        case .date: return attribute.usesScalarValueType ? typeName("TimeInterval") : typeName("Date") + "?"
        case .binaryData: return typeName("Data") + "?"
        case .decimal: return typeName("Decimal") + "?"
        case .uuid: return typeName("UUID") + "?"
        case .uri: return typeName("URL") + "?"
        case .objectID: return typeName("ManagedObjectID") + "?"
        case .transformable: return transformableType(attribute.customClassName) + "?"
        // A composite's value is a dictionary keyed by its elements' names, as Xcode declares it.
        case .composite: return "[\(typeName("String")): \(typeName("Any"))]?"
        default: return typeName("Any") + "?"
        }
    }

    /// The declared type of a transformable value: its `customClassName` when Swift can read it
    /// as a type, the Swift spelling of a Foundation class, and `Any` otherwise.
    private func transformableType(_ customClassName: String?) -> String {
        guard var name = customClassName?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return typeName("Any") }
        // Xcode writes a leading dot for a class of the app's own module (".Resolution"), as it
        // does for entities' classes.
        if name.hasPrefix(".") { name.removeFirst() }
        if let bridged = Self.bridgedClassNames[name] { return bridged }
        guard SwiftNames.isPlausibleTypeName(name), !SwiftNames.keywords.contains(name) || name == "Any" else { return typeName("Any") }
        // A dictionary or array type needs brackets around it to take a `?`; those have them.
        return name
    }

    /// The class of a relationship's destination; one without a class of its own is read as
    /// plain objects.
    func destinationClass(_ relationship: RelationshipDescription) -> String {
        classNames[relationship.destinationEntityName] ?? "ManagedObject"
    }

    func relationshipType(_ relationship: RelationshipDescription) -> String {
        let destination = destinationClass(relationship)
        if !relationship.isToMany { return destination + "?" }
        return relationship.isOrdered ? "[\(destination)]" : "\(typeName("Set"))<\(destination)>"
    }
}

import Foundation
import LimelightData

/// What will be generated for a model, decided and checked before any source is written: which
/// entities get a class or an extension, under which names, with which properties.
struct GenerationPlan {
    /// One entity's part of the source.
    struct Entry {
        enum Kind { case classDefinition, category }
        let entityName: String
        let kind: Kind
        let className: String
        /// The class this one inherits from (`ManagedObject` at the root); for a category, the
        /// application's class declares it, so it is only used to know who inherits from whom.
        let superclassName: String
        /// Final unless another entity's class inherits from it.
        var isFinal: Bool
        let properties: [PlannedProperty]
    }

    let entries: [Entry]

    /// Names the generated code declares or must not shadow, so no class may take them.
    static let reservedClassNames: Set<String> = ["ManagedObject", "Managed", "ManagedObjectClassRegistry"]

    init(model: ManagedObjectModel, options: ClassGenerationOptions, registrationTypeName: String) throws {
        let entities = model.entities.sorted { $0.name < $1.name }
        let byName = model.entitiesByName

        // Which entities get code, and under which class name.
        var kinds: [String: Entry.Kind] = [:]
        var classNames: [String: String] = [:]
        for entity in entities {
            switch entity.classCodeGeneration {
            case .classDefinition: kinds[entity.name] = .classDefinition
            case .category: kinds[entity.name] = .category
            case .manual: if options.generatesAllEntities { kinds[entity.name] = .classDefinition }
            }
            let represented = entity.managedObjectClassName
            if kinds[entity.name] != nil {
                // Xcode names a generated class after the entity when the model names none.
                let name = SwiftNames.className(fromRepresented: represented) ?? entity.name
                try Self.checkClassName(name, of: entity, registrationTypeName: registrationTypeName)
                classNames[entity.name] = name
            } else if let name = SwiftNames.className(fromRepresented: represented), SwiftNames.isIdentifier(name) {
                // A class the application writes itself: generated code may inherit from it
                // and point at it.
                classNames[entity.name] = name
            }
        }
        // A class is generated once: no other entity may have it, generated or written by hand
        // (entities set to Manual/None may share their application's class among themselves).
        var owners: [String: String] = [:]
        for entity in entities.sorted(by: { (kinds[$0.name] == nil ? 1 : 0, $0.name) < (kinds[$1.name] == nil ? 1 : 0, $1.name) }) {
            guard let name = classNames[entity.name] else { continue }
            if let other = owners[name], kinds[entity.name] != nil || kinds[other] != nil {
                throw ClassGenerationError(entity: entity.name, "its class \(name) is also the class of entity \(other); a generated class cannot serve two entities (give one of them another class name)")
            }
            if owners[name] == nil { owners[name] = entity.name }
        }

        // Classes, their parents and their properties. An ancestor without a class of its own
        // has its properties declared by the nearest descendants that have one.
        let types = SwiftTypeMapping(classNames: classNames)
        func ancestry(of entity: EntityDescription) -> (declaring: [EntityDescription], superclass: String) {
            var declaring = [entity]
            var parent = entity.superentityName.flatMap { byName[$0] }
            while let ancestor = parent, classNames[ancestor.name] == nil, !declaring.contains(where: { $0 === ancestor }) {
                declaring.append(ancestor)
                parent = ancestor.superentityName.flatMap { byName[$0] }
            }
            return (declaring, parent.flatMap { classNames[$0.name] } ?? "ManagedObject")
        }
        var planned: [Entry] = []
        for entity in entities {
            guard let kind = kinds[entity.name], let className = classNames[entity.name] else { continue }
            let (declaring, superclass) = ancestry(of: entity)
            let properties = try declaring.flatMap { owner in
                try owner.ownProperties.compactMap { try types.property($0, of: entity) }
            }.sorted { $0.name < $1.name }
            planned.append(Entry(entityName: entity.name, kind: kind, className: className, superclassName: superclass,
                                 isFinal: true, properties: properties))
        }
        // Any entity's class may inherit from a generated one, the application's own classes too.
        let inheritedFrom = Set(entities.filter { $0.superentityName != nil }.map { ancestry(of: $0).superclass })
        for index in planned.indices where inheritedFrom.contains(planned[index].className) {
            planned[index].isFinal = false
        }
        entries = planned
    }

    private static func checkClassName(_ name: String, of entity: EntityDescription, registrationTypeName: String) throws {
        guard SwiftNames.isIdentifier(name), !SwiftNames.keywords.contains(name) else {
            throw ClassGenerationError(entity: entity.name, "its class name '\(entity.managedObjectClassName ?? name)' is not a Swift identifier")
        }
        if reservedClassNames.contains(name) || name == registrationTypeName {
            throw ClassGenerationError(entity: entity.name, "its class name \(name) is taken by the framework or the generated code")
        }
    }
}

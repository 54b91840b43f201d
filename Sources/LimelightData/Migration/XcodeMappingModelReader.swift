import Foundation

/// Compiles the objects of an Xcode mapping model (`XcodeMappingDocument`) into a `MappingModel`
/// against the two model versions it maps between, filling in what Xcode leaves for its compiler.
///
/// What the files hold (as Xcode writes them), and what becomes of it:
/// - entity mappings (`XDDEVENTITYMAPPING`): `sourcename`, `destinationname` (one of them missing
///   for an added or removed entity), `mappingtypename` (Xcode writes `Undefined` unless a type
///   was picked), `mappingnumber` (their order), `sourcefilterpredicatestring`,
///   `migrationpolicyclassname`, `userinfodata` (an archived dictionary) and
///   `autogenerateexpression`. No name is stored: the mapping is named source`To`destination
///   (`NoteToAttachment`), as Core Data names one by default, or by the one entity it has.
///   With `autogenerateexpression`, the source expression is Xcode's fetch of the source entity's
///   objects, `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:",
///   "Note", "image != nil"), $manager.sourceContext, NO)`, with `TRUEPREDICATE` without a filter.
/// - attribute mappings (`XDDEVATTRIBUTEMAPPING`) hold a `name` only when the value is the
///   source's attribute of that name, which becomes `$source.name` (nothing when the source
///   entity has no such attribute: the destination keeps its default).
/// - relationship mappings (`XDDEVRELATIONSHIPMAPPING`): `name`, `autogenerateexpression`, and
///   optionally `sourcekeypath` (`$source`) and `sourcemappingname` (`NoteToNote`), which give
///   `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:",
///   "NoteToNote", $source)`. Without them, the key path is `$source.name` and the mapping is
///   the one making objects of the relationship's destination entity (from the source
///   relationship's destination entity, when several do).
/// - a value or source expression written by hand is read from `valueexpressiondata` /
///   `sourceexpressiondata` (an archived `NSExpression`, as `.cdm` files keep them) or from a
///   string attribute `valueexpression`, `valueexpressionstring`, `sourceexpression` or
///   `sourceexpressionstring` (the format text).
///
/// The entities' version hashes are recorded from the two models, so the mapping fits those
/// versions only, as a compiled one does.
struct XcodeMappingModelReader {
    let document: XcodeMappingDocument
    let sourceModel: ManagedObjectModel
    let destinationModel: ManagedObjectModel
    let policies: [EntityMigrationPolicy.Type]

    typealias Object = XcodeMappingDocument.Object

    /// An entity mapping's name, entities and type: read before any mapping is made, since a
    /// relationship mapping names the mapping that makes its objects.
    struct Head {
        let object: Object
        let name: String
        let sourceEntity: EntityDescription?
        let destinationEntity: EntityDescription?
        let type: EntityMappingType
    }

    func read() throws -> MappingModel {
        try MigrationManager.resolveIfEditable(sourceModel)
        try MigrationManager.resolveIfEditable(destinationModel)
        let root = try document.mappingModel()
        let objects = try document.related(root, "entitymappings", type: "XDDEVENTITYMAPPING")
        var numbered: [(number: Int, position: Int, object: Object)] = []
        for (position, object) in objects.enumerated() {
            var number = Int.max
            if let text = nonEmpty(object.string("mappingnumber")) {
                guard let value = Int(text) else { throw failure(object, "mappingnumber '\(text)' is not a number") }
                number = value
            }
            numbered.append((number, position, object))
        }
        numbered.sort { ($0.number, $0.position) < ($1.number, $1.position) }
        let heads = try numbered.map { try head($0.object) }
        var mapping = MappingModel(entityMappings: try heads.map { try entityMapping($0, among: heads) })
        mapping.recordEntityVersionHashes(sourceModel: sourceModel, destinationModel: destinationModel)
        return mapping
    }

    private func head(_ object: Object) throws -> Head {
        let sourceName = nonEmpty(object.string("sourcename")), destinationName = nonEmpty(object.string("destinationname"))
        guard sourceName != nil || destinationName != nil else { throw failure(object, "an entity mapping with neither sourcename nor destinationname") }
        let name = nonEmpty(object.string("name"))
            ?? (sourceName.flatMap { source in destinationName.map { source + "To" + $0 } } ?? destinationName ?? sourceName ?? "")
        func entity(_ entityName: String?, in model: ManagedObjectModel, _ attribute: String, _ side: String) throws -> EntityDescription? {
            guard let entityName else { return nil }
            guard let entity = model.entity(named: entityName) else {
                throw failure(object, "entity mapping \(name): \(attribute) \(entityName) is no entity of the \(side) model "
                    + "(it has \(model.entities.map(\.name).sorted().joined(separator: ", ")))")
            }
            return entity
        }
        let typeName = object.string("mappingtypename")
        guard let type = Self.mappingType(typeName, hasSource: sourceName != nil, hasDestination: destinationName != nil) else {
            throw failure(object, "entity mapping \(name): mappingtypename '\(typeName ?? "")' is not one of "
                + "Undefined, Custom, Add, Remove, Copy, Transform")
        }
        return Head(object: object, name: name, sourceEntity: try entity(sourceName, in: sourceModel, "sourcename", "source"),
                    destinationEntity: try entity(destinationName, in: destinationModel, "destinationname", "destination"), type: type)
    }

    /// The type Xcode's popup names. `Undefined` (what Xcode writes unless a type was picked) is an
    /// add or remove mapping when one of the entities is missing; otherwise it stays undefined,
    /// which migrates through the property mappings as a transform does.
    static func mappingType(_ name: String?, hasSource: Bool, hasDestination: Bool) -> EntityMappingType? {
        var key = (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if key.hasPrefix("ns") { key.removeFirst(2) }
        if key.hasSuffix("entitymappingtype") { key.removeLast("entitymappingtype".count) }
        switch key {
        case "", "undefined": return !hasSource ? .add : !hasDestination ? .remove : .undefined
        case "custom": return .custom
        case "add": return .add
        case "remove": return .remove
        case "copy": return .copy
        case "transform": return .transform
        default: return nil
        }
    }

    private func entityMapping(_ head: Head, among heads: [Head]) throws -> EntityMapping {
        let object = head.object, place = "object \(head.object.id) (entity mapping \(head.name))"
        var sourceExpression = try storedExpression(object, "sourceexpression", place: place)
        if sourceExpression == nil, object.flag("autogenerateexpression") != false, let source = head.sourceEntity,
           head.type != .add, head.type != .remove {
            let filter = nonEmpty(object.string("sourcefilterpredicatestring")) ?? "TRUEPREDICATE"
            do {
                _ = try QueryPredicate(format: filter)
            } catch {
                throw failure(object, "entity mapping \(head.name): sourcefilterpredicatestring '\(filter)' does not parse: \(error)")
            }
            sourceExpression = try QueryExpression(format: "FETCH(FUNCTION($manager, 'fetchRequestForSourceEntityNamed:predicateString:', "
                                                   + "%@, %@), $manager.sourceContext, NO)", source.name, filter)
        }
        let className = nonEmpty(object.string("migrationpolicyclassname") ?? object.string("entitymigrationpolicyclassname"))
        return EntityMapping(
            name: head.name, mappingType: head.type, sourceEntityName: head.sourceEntity?.name,
            destinationEntityName: head.destinationEntity?.name,
            attributeMappings: try propertyMappings(head, relationships: false, among: heads),
            relationshipMappings: try propertyMappings(head, relationships: true, among: heads),
            sourceExpression: sourceExpression,
            entityMigrationPolicy: try MissingMigrationPolicyError.policy(named: className, among: policies, mapping: head.name, file: document.source),
            userInfo: try userInfo(object, place: place))
    }

    private func propertyMappings(_ head: Head, relationships: Bool, among heads: [Head]) throws -> [PropertyMapping] {
        let objects = try document.related(head.object, relationships ? "relationshipmappings" : "attributemappings",
                                           type: relationships ? "XDDEVRELATIONSHIPMAPPING" : "XDDEVATTRIBUTEMAPPING")
        var mappings: [PropertyMapping] = []
        for object in objects {
            guard let name = nonEmpty(object.string("name")) else {
                throw failure(object, "a \(relationships ? "relationship" : "attribute") mapping of \(head.name) without a name")
            }
            let place = "object \(object.id) (\(relationships ? "relationship" : "attribute") mapping \(head.name).\(name))"
            var expression = try storedExpression(object, "valueexpression", place: place)
            if expression == nil, object.flag("autogenerateexpression") != false {
                expression = relationships ? try generatedRelationship(name, object, head, among: heads, place: place)
                    : generatedAttribute(name, head)
            }
            mappings.append(PropertyMapping(name: name, valueExpression: expression, userInfo: try userInfo(object, place: place)))
        }
        // In the destination entity's order, as the editor lists them (the file keeps no order).
        let order = Dictionary((head.destinationEntity?.properties ?? []).enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        return mappings.sorted { (order[$0.name ?? ""] ?? Int.max, $0.name ?? "") < (order[$1.name ?? ""] ?? Int.max, $1.name ?? "") }
    }

    /// `$source.name`, when the source entity has an attribute of that name.
    private func generatedAttribute(_ name: String, _ head: Head) -> QueryExpression? {
        guard let attribute = head.sourceEntity?.property(named: name), attribute is AttributeDescription else { return nil }
        return MappingInference.valueExpression(from: attribute)
    }

    /// The destination objects the named mapping made from the objects at the key path.
    private func generatedRelationship(_ name: String, _ object: Object, _ head: Head, among heads: [Head], place: String) throws -> QueryExpression? {
        let sourceRelationship = head.sourceEntity?.property(named: name) as? RelationshipDescription
        let keyPath: QueryExpression
        if let text = nonEmpty(object.string("sourcekeypath")) {
            do {
                keyPath = try QueryExpression(format: text)
            } catch {
                throw failure(object, "\(place): sourcekeypath '\(text)' does not parse: \(error)")
            }
        } else if let sourceRelationship {
            keyPath = .keyPathOf(.variable("source"), sourceRelationship.name)
        } else {
            return nil
        }
        let mappingName: String
        if let named = nonEmpty(object.string("sourcemappingname")) {
            mappingName = named
        } else {
            let target = (head.destinationEntity?.property(named: name) as? RelationshipDescription)?.destinationEntity
            let candidates = heads.filter { $0.destinationEntity != nil && $0.destinationEntity === target }
            let from = sourceRelationship?.destinationEntity
            guard let chosen = candidates.first(where: { from != nil && $0.sourceEntity === from }) ?? candidates.first else { return nil }
            mappingName = chosen.name
        }
        return .function("FUNCTION", [.variable("manager"), .value("destinationInstancesForEntityMappingNamed:sourceInstances:"),
                                      .value(mappingName), keyPath])
    }

    /// A hand-written expression stored under `prefix`: archived (`…data`, binary) or as text.
    private func storedExpression(_ object: Object, _ prefix: String, place: String) throws -> QueryExpression? {
        for key in [prefix + "data", prefix, prefix + "string"] {
            guard let (type, text) = object.attributes[key] else { continue }
            if type.lowercased() == "binary" {
                guard let data = try document.data(object, key, place: place) else { continue }
                do {
                    let archive = try KeyedArchive(data, source: document.source)
                    return try archive.mappingExpression(archive.topReference(), in: place)
                } catch let error as ModelError {
                    throw failure(object, "\(place): \(key) does not decode to an expression: \(error.reason)")
                }
            }
            guard let format = nonEmpty(text) else { continue }
            do {
                return try QueryExpression(format: format)
            } catch {
                throw failure(object, "\(place): \(key) '\(format)' does not parse: \(error)")
            }
        }
        return nil
    }

    private func userInfo(_ object: Object, place: String) throws -> [String: any Sendable]? {
        guard let data = try document.data(object, "userinfodata", place: place) else { return nil }
        do {
            let archive = try KeyedArchive(data, source: document.source)
            return try archive.mappingUserInfo(archive.topReference())
        } catch let error as ModelError {
            throw failure(object, "\(place): userinfodata does not decode to a dictionary: \(error.reason)")
        }
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    /// An error naming the file, the object's line and the problem.
    private func failure(_ object: Object, _ reason: String) -> ModelError {
        ModelError("line \(object.line): \(reason.hasPrefix("object ") ? reason : "object \(object.id): \(reason)")", at: document.source)
    }
}

import Foundation

/// Turns a keyed archive of `NSMappingModel` (a `.cdm` file Xcode compiles from an
/// `.xcmappingmodel`) into a `MappingModel`, with the keys Core Data's classes archive:
/// `NSEntityMappings` on the model; `NSMappingName`, `NSMappingType`, `NSSourceEntityName`,
/// `NSSourceEntityVersionHash`, `NSDestinationEntityName`, `NSDestinationEntityVersionHash`,
/// `NSSourceExpression`, `NSUserInfo`, `NSEntityMigrationPolicyClassName`, `NSAttributeMappings`
/// and `NSRelationshipMappings` on an entity mapping; `NSDestinationPropertyName`,
/// `NSValueExpression` and `NSUserInfo` on a property mapping. Expressions are archived
/// `NSExpression`s, read back into the format language.
///
/// A policy is archived by class name; there is no Objective-C runtime to look one up, so the
/// classes come from the caller and are matched by name (with or without a module prefix).
struct CompiledMappingModelReader {
    let archive: KeyedArchive
    let policies: [EntityMigrationPolicy.Type]

    func read() throws -> MappingModel {
        let root = try archive.topObject()
        guard try archive.classChain(of: root).contains("NSMappingModel") else {
            throw ModelError("the archive holds a \(try archive.className(of: root)), not a mapping model", at: archive.source)
        }
        var mappings: [EntityMapping] = []
        for reference in try archive.elements(root.fields["NSEntityMappings"]) {
            guard let object = try archive.object(reference) else { continue }
            mappings.append(try entityMapping(object))
        }
        return MappingModel(entityMappings: mappings)
    }

    private func entityMapping(_ object: KeyedArchive.Object) throws -> EntityMapping {
        let fields = object.fields
        let source = try archive.string(fields["NSSourceEntityName"]), destination = try archive.string(fields["NSDestinationEntityName"])
        let name = try archive.string(fields["NSMappingName"]) ?? "\(source ?? "")To\(destination ?? "")"
        let code = fields["NSMappingType"] as? Int ?? 0
        guard let type = EntityMappingType(rawValue: code) else {
            throw ModelError("entity mapping \(name) has the unknown mapping type \(code)", at: archive.source)
        }
        var mapping = EntityMapping(
            name: name, mappingType: type, sourceEntityName: source, destinationEntityName: destination,
            attributeMappings: try propertyMappings(fields["NSAttributeMappings"], in: name),
            relationshipMappings: try propertyMappings(fields["NSRelationshipMappings"], in: name),
            sourceExpression: try expression(fields["NSSourceExpression"], in: name),
            entityMigrationPolicy: try policy(named: try archive.string(fields["NSEntityMigrationPolicyClassName"]), in: name),
            userInfo: try userInfo(fields["NSUserInfo"]))
        mapping.sourceEntityVersionHash = try archive.value(fields["NSSourceEntityVersionHash"]) as? Data
        mapping.destinationEntityVersionHash = try archive.value(fields["NSDestinationEntityVersionHash"]) as? Data
        return mapping
    }

    private func propertyMappings(_ field: Any?, in mapping: String) throws -> [PropertyMapping] {
        try archive.elements(field).compactMap { reference -> PropertyMapping? in
            guard let object = try archive.object(reference) else { return nil }
            guard let name = try archive.string(object.fields["NSDestinationPropertyName"]) else {
                throw ModelError("a property mapping of \(mapping) has no property name", at: archive.source)
            }
            return PropertyMapping(name: name, valueExpression: try expression(object.fields["NSValueExpression"], in: "\(mapping).\(name)"),
                                   userInfo: try userInfo(object.fields["NSUserInfo"]))
        }
    }

    private func expression(_ field: Any?, in place: String) throws -> QueryExpression? {
        try archive.mappingExpression(field, in: place)
    }

    private func policy(named className: String?, in mapping: String) throws -> EntityMigrationPolicy.Type? {
        try MissingMigrationPolicyError.policy(named: className, among: policies, mapping: mapping, file: archive.source)
    }

    private func userInfo(_ field: Any?) throws -> [String: any Sendable]? {
        try archive.mappingUserInfo(field)
    }
}

extension MappingModel {
    /// Reads the keyed archive of a compiled mapping model (the contents of a `.cdm` file);
    /// `source` names it in errors.
    public init(archiveData data: Data, source: String, policies: [EntityMigrationPolicy.Type] = []) throws {
        self = try CompiledMappingModelReader(archive: try KeyedArchive(data, source: source), policies: policies).read()
    }
}

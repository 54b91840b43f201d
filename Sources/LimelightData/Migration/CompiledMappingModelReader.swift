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
        guard let object = try archive.object(field) else { return nil }
        let format: String
        do {
            format = try ArchivedPredicate(archive: archive, allowsMethodCalls: true).expressionFormat(object)
        } catch {
            throw ModelError("the expression of \(place) cannot be read: \(error)", at: archive.source)
        }
        do {
            return try QueryExpression(format: format)
        } catch {
            throw ModelError("the expression of \(place), \(format), does not parse: \(error)", at: archive.source)
        }
    }

    private func policy(named className: String?, in mapping: String) throws -> EntityMigrationPolicy.Type? {
        guard let className, !className.isEmpty, className != "NSEntityMigrationPolicy" else { return nil }
        func unqualified(_ name: String) -> Substring { name.split(separator: ".").last ?? Substring(name) }
        if let exact = policies.first(where: { String(reflecting: $0) == className }) { return exact }
        let matches = policies.filter { unqualified(String(reflecting: $0)) == unqualified(className) }
        guard matches.count == 1, let match = matches.first else {
            throw ModelError("entity mapping \(mapping) runs the policy class \(className), which is not among the policies given"
                + (matches.isEmpty ? "" : " (several have its name)"), at: archive.source)
        }
        return match
    }

    private func userInfo(_ field: Any?) throws -> [String: any Sendable]? {
        guard field != nil else { return nil }
        var result: [String: any Sendable] = [:]
        for (key, value) in try archive.entries(field) {
            guard let key = try archive.string(key) else { continue }
            switch try archive.value(value) {
            case let text as String: result[key] = text
            case let number as Int: result[key] = number
            case let number as Double: result[key] = number
            case let flag as Bool: result[key] = flag
            case let data as Data: result[key] = data
            case let date as Date: result[key] = date
            default: continue
            }
        }
        return result
    }
}

extension MappingModel {
    /// Reads a compiled mapping model (a `.cdm` file), Core Data's `NSMappingModel(contentsOf:)`.
    /// `policies` are the entity migration policy classes it names (by class name, with or
    /// without the module prefix); one it names that is not given is an error.
    public init(contentsOf url: URL, policies: [EntityMigrationPolicy.Type] = []) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ModelError("cannot read the mapping model: \(error.localizedDescription)", at: url.path)
        }
        try self.init(archiveData: data, source: url.path, policies: policies)
    }

    /// Reads the keyed archive of a mapping model; `source` names it in errors.
    public init(archiveData data: Data, source: String, policies: [EntityMigrationPolicy.Type] = []) throws {
        self = try CompiledMappingModelReader(archive: try KeyedArchive(data, source: source), policies: policies).read()
    }

    /// The compiled mapping model (`.cdm`) among the bundles' resources that fits the two model
    /// versions, Core Data's `NSMappingModel(from:forSourceModel:destinationModel:)`: Xcode
    /// records the entities' version hashes in it, so it fits one step between versions. `nil`
    /// when none fits; an error when a mapping model there cannot be read. `nil` bundles: the
    /// main bundle.
    public init?(from bundles: [Bundle]?, forSourceModel source: ManagedObjectModel?, destinationModel destination: ManagedObjectModel?,
                 policies: [EntityMigrationPolicy.Type] = []) throws {
        guard let source, let destination else { return nil }
        for bundle in bundles ?? [Bundle.main] {
            let folder = bundle.resourceURL ?? bundle.bundleURL
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".cdm") {
                let mapping = try MappingModel(contentsOf: folder.appendingPathComponent(name), policies: policies)
                if mapping.fits(sourceModel: source, destinationModel: destination) {
                    self = mapping
                    return
                }
            }
        }
        return nil
    }
}

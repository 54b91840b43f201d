import Foundation

/// Which destination objects an object-level migration made from which source objects, per
/// entity mapping, as Core Data's migration manager keeps it.
///
/// Source objects are held by their IDs (the source context may let them go between mappings);
/// destination objects are held themselves, as they all stay in the destination context until
/// the one save at the end anyway.
struct MigrationAssociations {
    private struct PerMapping {
        /// Destination objects in the order they were associated: the relationship stage's order.
        var created: [ManagedObject] = []
        var destinationsBySource: [ManagedObjectID: [ManagedObject]] = [:]
        var sourcesByDestination: [ObjectIdentifier: [ManagedObjectID]] = [:]
        /// Source objects in the order they were first associated.
        var sources: [ManagedObjectID] = []
    }

    private var mappings: [String: PerMapping] = [:]
    /// Every mapping's destination objects by source object, for relationships followed by
    /// name (`destinationInstancesForSourceRelationshipNamed:sourceInstances:`).
    private var destinationsBySource: [ManagedObjectID: [ManagedObject]] = [:]

    mutating func associate(_ source: ManagedObjectID, with destination: ManagedObject, mapping: String) {
        var entry = mappings[mapping] ?? PerMapping()
        let key = ObjectIdentifier(destination)
        if entry.sourcesByDestination[key] == nil { entry.created.append(destination) }
        if entry.destinationsBySource[source] == nil { entry.sources.append(source) }
        if entry.destinationsBySource[source]?.contains(where: { $0 === destination }) != true {
            entry.destinationsBySource[source, default: []].append(destination)
            destinationsBySource[source, default: []].append(destination)
        }
        if entry.sourcesByDestination[key]?.contains(source) != true { entry.sourcesByDestination[key, default: []].append(source) }
        mappings[mapping] = entry
    }

    /// The destination objects `mapping` made from `sources`, or all it made for `nil`.
    func destinations(mapping: String, sources: [ManagedObjectID]?) -> [ManagedObject] {
        guard let entry = mappings[mapping] else { return [] }
        guard let sources else { return entry.created }
        return sources.flatMap { entry.destinationsBySource[$0] ?? [] }
    }

    /// The source objects (by ID) `mapping` made `destinations` from, or all for `nil`.
    func sources(mapping: String, destinations: [ManagedObject]?) -> [ManagedObjectID] {
        guard let entry = mappings[mapping] else { return [] }
        guard let destinations else { return entry.sources }
        return destinations.flatMap { entry.sourcesByDestination[ObjectIdentifier($0)] ?? [] }
    }

    /// The destination objects any mapping made from `source`.
    func destinations(fromAnyMapping source: ManagedObjectID) -> [ManagedObject] {
        destinationsBySource[source] ?? []
    }

    /// How many destination objects `mapping` made.
    func count(mapping: String) -> Int { mappings[mapping]?.created.count ?? 0 }
}

import Foundation

/// How the objects of a store made with one model version become objects of another: one entry
/// per entity of either model, inferred by `MappingModel(inferringFrom:to:)`.
///
/// A mapping is plain data so that it can be shown before anything is written (`limelight migrate
/// --dry-run` prints `description`) and checked in tests.
public struct MappingModel: Sendable, CustomStringConvertible {
    /// Every entity of the destination model, and every removed entity of the source model.
    public var entityMappings: [EntityMapping]
    /// Changes a lightweight migration cannot carry out, each naming the entity and property.
    /// A mapping with any of these is refused before the store is touched.
    public var unmappableChanges: [String]

    public init(entityMappings: [EntityMapping], unmappableChanges: [String]) {
        self.entityMappings = entityMappings
        self.unmappableChanges = unmappableChanges
    }

    /// Whether migrating would change nothing that is stored: same entities, same columns.
    public var isIdentity: Bool {
        entityMappings.allSatisfy { $0.kind == .copy && $0.propertyMappings.allSatisfy { $0.kind == .copy } && $0.otherChanges.isEmpty }
    }

    /// The mapping of the destination entity with this name.
    public func mapping(forDestination name: String) -> EntityMapping? {
        entityMappings.first { $0.destinationEntityName == name }
    }

    public var description: String {
        var lines: [String] = []
        for mapping in entityMappings {
            lines.append(mapping.summary)
            for property in mapping.propertyMappings where property.kind != .copy {
                lines.append("    " + property.summary)
            }
            for change in mapping.otherChanges { lines.append("    * " + change) }
        }
        if unmappableChanges.isEmpty {
            lines.append(isIdentity ? "no changes: the store already fits the model" : "the mapping can be inferred")
        } else {
            lines.append("cannot be inferred:")
            lines += unmappableChanges.map { "    ! " + $0 }
        }
        return lines.joined(separator: "\n")
    }
}

/// What happens to the objects of one entity.
public struct EntityMapping: Sendable {
    public enum Kind: Sendable, Equatable {
        /// The entity exists in both versions under the same name.
        case copy
        /// Renamed through the destination's renaming identifier (`elementID`).
        case rename
        /// New in the destination: no objects to carry over.
        case add
        /// Gone from the destination: its objects are dropped.
        case remove
    }

    public var kind: Kind
    /// The entity in the model the store was made with; `nil` for an added entity.
    public var sourceEntityName: String?
    /// The entity in the model the store moves to; `nil` for a removed entity.
    public var destinationEntityName: String?
    /// One entry per stored property of the destination entity, and per removed stored property.
    public var propertyMappings: [PropertyMapping]
    /// Entity-level changes that need no data conversion but change the store: a new parent, a
    /// new uniqueness constraint or fetch index.
    public var otherChanges: [String]

    public init(kind: Kind, sourceEntityName: String?, destinationEntityName: String?,
                propertyMappings: [PropertyMapping] = [], otherChanges: [String] = []) {
        self.kind = kind
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.propertyMappings = propertyMappings
        self.otherChanges = otherChanges
    }

    /// The mapping of the destination property with this name.
    public func mapping(forDestination name: String) -> PropertyMapping? {
        propertyMappings.first { $0.destinationName == name }
    }

    var summary: String {
        switch kind {
        case .copy: return "\(destinationEntityName ?? "?")"
        case .rename: return "\(sourceEntityName ?? "?") -> \(destinationEntityName ?? "?") (renamed)"
        case .add: return "+ \(destinationEntityName ?? "?") (added)"
        case .remove: return "- \(sourceEntityName ?? "?") (removed, its objects are dropped)"
        }
    }
}

/// Where the value of one destination property comes from.
public struct PropertyMapping: Sendable {
    public enum Kind: Sendable, Equatable {
        /// Same name, same type: the value is copied.
        case copy
        /// Renamed through the destination's renaming identifier; the value is copied.
        case rename
        /// New: every object gets the default value (or none).
        case add
        /// Gone: the value is dropped.
        case remove
        /// Same property, another attribute type the value converts to without loss (wider
        /// integers, integers to floating point).
        case retype
        /// Was optional, is required now: missing values get the default value.
        case required
        /// A relationship that was to-one and is to-many now (or changes how it is stored).
        case cardinality
    }

    public var kind: Kind
    /// The property the values come from; `nil` for an added property.
    public var sourceName: String?
    /// The property the values go to; `nil` for a removed property.
    public var destinationName: String?
    /// Human-readable detail: types, defaults, destinations.
    public var detail: String

    public init(kind: Kind, sourceName: String?, destinationName: String?, detail: String = "") {
        self.kind = kind
        self.sourceName = sourceName
        self.destinationName = destinationName
        self.detail = detail
    }

    var summary: String {
        let suffix = detail.isEmpty ? "" : " (\(detail))"
        switch kind {
        case .copy: return "= \(destinationName ?? "?")"
        case .rename: return "~ \(sourceName ?? "?") -> \(destinationName ?? "?") renamed\(suffix)"
        case .add: return "+ \(destinationName ?? "?") added\(suffix)"
        case .remove: return "- \(sourceName ?? "?") removed\(suffix)"
        case .retype: return "~ \(destinationName ?? "?") retyped\(suffix)"
        case .required: return "~ \(destinationName ?? "?") now required\(suffix)"
        case .cardinality: return "~ \(destinationName ?? "?") changes cardinality\(suffix)"
        }
    }
}

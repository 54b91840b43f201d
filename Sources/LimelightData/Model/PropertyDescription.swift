import Foundation

/// Common description of an entity's property: attributes, relationships and fetched properties.
///
/// Like every model type, a property is mutable while its model is being built and frozen once a
/// coordinator uses the model; from then on it may be shared freely between threads.
public class PropertyDescription: @unchecked Sendable, CustomStringConvertible {
    /// The property's name, the key used with `value(forKey:)`.
    public var name: String
    public var isOptional: Bool = true
    /// Transient properties live in the object graph only and are never stored.
    public var isTransient: Bool = false
    /// Marks the property as indexed by the search side (`spotlightIndexingEnabled`).
    public var isIndexedBySpotlight: Bool = false
    /// Puts the value into the object's marker file (`storedInTruthFile`).
    public var isStoredInExternalRecord: Bool = false
    /// The old name this property had, so migration can carry its values over (`elementID`).
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    public var userInfo: [String: String] = [:]
    /// Whether a database index should be kept for this property.
    public var isIndexed: Bool = false
    /// Xcode attributes this framework does not interpret, kept so writing the model loses nothing.
    public var extraXMLAttributes: [String: String] = [:]
    /// Child elements this framework does not interpret, kept as XML text.
    public var extraXMLElements: [String] = []
    /// Attributes the XML wrote explicitly although they held their default (`optional="NO"`), and
    /// the original text of values the writer would spell differently (`defaultValueString="0.0"`),
    /// so a model read and written back keeps its exact text.
    public var explicitXMLAttributes: Set<String> = []
    public var originalXMLText: [String: String] = [:]
    /// Conditions a value must meet to be saved, beyond the model's bounds and pattern: each is
    /// evaluated with the value as `SELF` (`SELF.length >= 3`, `SELF > 0`, `@count <= 10` for a
    /// to-many), as Core Data's validation predicates are. An absent value is not checked.
    public private(set) var validationPredicates: [QueryPredicate] = []
    /// What a failed validation predicate reports, one per predicate, in the same order.
    public private(set) var validationWarnings: [String] = []
    /// The entity that declares the property; set when the property is added to an entity.
    public internal(set) var entity: EntityDescription? {
        get { entityReference?.entity }
        set { entityReference = newValue?.weakTarget }
    }
    private weak var entityReference: EntityReference?

    public init(name: String) {
        self.name = name
    }

    /// Sets the conditions a value must meet and what each reports when it fails, as Core
    /// Data's `setValidationPredicates(_:withValidationWarnings:)`. A predicate without a warning
    /// reports its own format.
    public func setValidationPredicates(_ predicates: [QueryPredicate]?, withValidationWarnings warnings: [String]?) {
        let predicates = predicates ?? []
        let warnings = warnings ?? []
        validationPredicates = predicates
        validationWarnings = predicates.indices.map { index in
            index < warnings.count ? warnings[index] : "does not satisfy \(predicates[index].predicateFormat)"
        }
    }

    public var description: String { "\(type(of: self))(\(name))" }
}

import Foundation

/// What happens to related objects when the source object is deleted.
public enum DeleteRule: String, Sendable {
    case noAction = "No Action"
    case nullify = "Nullify"
    case cascade = "Cascade"
    case deny = "Deny"

    /// The number Core Data gives the rule (`NSDeleteRule`), as compiled models hold it.
    public var code: Int {
        switch self {
        case .noAction: return 0
        case .nullify: return 1
        case .cascade: return 2
        case .deny: return 3
        }
    }

    /// The rule Core Data numbers `code`; `nil` for another number.
    public init?(code: Int) {
        guard let rule = [DeleteRule.noAction, .nullify, .cascade, .deny].first(where: { $0.code == code }) else { return nil }
        self = rule
    }
}

/// Describes a link from one entity to another, to-one or to-many, with its inverse.
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    public var destinationEntityName: String
    public var inverseName: String?
    public var deleteRule: DeleteRule = .nullify
    public var minCount: Int = 0
    /// 1 for a to-one relationship; 0 means unbounded to-many.
    public var maxCount: Int = 1
    public var isToManyFlag: Bool = false
    public var isOrdered: Bool = false

    /// The resolved destination entity, available once the model is assembled.
    public internal(set) var destinationEntity: EntityDescription? {
        get { destinationReference?.entity }
        set { destinationReference = newValue?.weakTarget }
    }
    private weak var destinationReference: EntityReference?
    /// The resolved inverse relationship, available once the model is assembled.
    public internal(set) weak var inverseRelationship: RelationshipDescription?

    public init(name: String, destination: String, inverse: String? = nil, toMany: Bool = false,
                deleteRule: DeleteRule = .nullify, isOptional: Bool = true) {
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.isToManyFlag = toMany
        self.maxCount = toMany ? 0 : 1
        self.deleteRule = deleteRule
        super.init(name: name)
        self.isOptional = isOptional
    }

    public var isToMany: Bool { isToManyFlag }

    /// Both sides to-many: stored in a join table.
    public var isManyToMany: Bool { isToMany && (inverseRelationship?.isToMany ?? false) }
}

import Foundation

/// A fetch request stored in a model by name (`<fetchRequest>` in Xcode's XML), with `$VARIABLE`s
/// filled in when it is used: `model.fetchRequestFromTemplate(withName:substitutionVariables:)`.
public struct FetchRequestTemplate: Sendable, Equatable {
    public var name: String
    public var entityName: String
    public var predicateFormat: String?
    /// 0 means no limit.
    public var fetchLimit = 0
    public var fetchBatchSize = 0
    public var includesSubentities = true
    public var includesPropertyValues = true
    public var includesPendingChanges = true
    public var returnsObjectsAsFaults = true
    public var returnsDistinctResults = false
    /// Settings Xcode wrote that this framework does not interpret, and the names of settings
    /// written explicitly at their default, kept so writing the model loses nothing.
    public var extraXMLAttributes: [String: String] = [:]
    public var explicitXMLAttributes: Set<String> = []

    public init(name: String, entityName: String, predicateFormat: String?) {
        self.name = name
        self.entityName = entityName
        self.predicateFormat = predicateFormat
    }
}

extension FetchRequestTemplate {
    /// The XML attribute names of the boolean settings, with their defaults, in Xcode's spelling.
    static var booleanSettings: [(key: String, path: WritableKeyPath<FetchRequestTemplate, Bool>, defaultValue: Bool)] { [
        ("includeSubentities", \.includesSubentities, true),
        ("includePropertyValues", \.includesPropertyValues, true),
        ("includesPendingChanges", \.includesPendingChanges, true),
        ("returnObjectsAsFaults", \.returnsObjectsAsFaults, true),
        ("returnDistinctResults", \.returnsDistinctResults, false),
    ] }

    /// Reads a `<fetchRequest>` element's attributes.
    init(xmlAttributes: [String: String], source: String) throws {
        var attrs = xmlAttributes
        guard let name = attrs.removeValue(forKey: "name"), let entity = attrs.removeValue(forKey: "entity") else {
            throw ModelError("<fetchRequest> needs name and entity", at: source)
        }
        self.init(name: name, entityName: entity, predicateFormat: attrs.removeValue(forKey: "predicateString"))
        for key in ["fetchLimit", "fetchBatchSize"] {
            guard let text = attrs.removeValue(forKey: key) else { continue }
            guard let number = Int(text), number >= 0 else {
                throw ModelError("fetch request '\(name)': \(key) '\(text)' is not a count", at: source)
            }
            if key == "fetchLimit" { fetchLimit = number } else { fetchBatchSize = number }
            explicitXMLAttributes.insert(key)
        }
        for setting in Self.booleanSettings {
            guard let text = attrs.removeValue(forKey: setting.key) else { continue }
            self[keyPath: setting.path] = text == "YES"
            explicitXMLAttributes.insert(setting.key)
        }
        extraXMLAttributes = attrs
    }

    /// The attributes of the `<fetchRequest>` element that writes this template.
    var xmlAttributes: [String: String] {
        var attrs = extraXMLAttributes
        attrs["name"] = name
        attrs["entity"] = entityName
        if let predicateFormat { attrs["predicateString"] = predicateFormat }
        if fetchLimit > 0 || explicitXMLAttributes.contains("fetchLimit") { attrs["fetchLimit"] = String(fetchLimit) }
        if fetchBatchSize > 0 || explicitXMLAttributes.contains("fetchBatchSize") { attrs["fetchBatchSize"] = String(fetchBatchSize) }
        for setting in Self.booleanSettings {
            let value = self[keyPath: setting.path]
            if value != setting.defaultValue || explicitXMLAttributes.contains(setting.key) { attrs[setting.key] = value ? "YES" : "NO" }
        }
        return attrs
    }
}

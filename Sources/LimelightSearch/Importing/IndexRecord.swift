import Foundation

/// What an importer makes of one marker: the text and values to index, and how to show the hit.
///
/// Importer programs write one of these per line as JSON (see `share/limelight/importers/README`):
/// `{"marker": "...", "displayName": "...", "text": "...", "fields": {"name": "..."}, "values":
/// {"servings": 4}}`, or `{"marker": "...", "error": "..."}` for a record they cannot read.
public struct IndexRecord: Codable, Sendable, Equatable {
    public var marker: String
    public var uri: String?
    public var entity: String?
    public var store: String?
    public var displayName: String?
    /// Free text not tied to a property.
    public var text: String?
    /// Free text per property: searchable as `name:salsa`, and by plain words.
    public var fields: [String: String]?
    /// Sortable values per property (numbers, or strings sorted as text).
    public var values: [String: SortableValue]?
    /// Set by an importer that could not read the record.
    public var error: String?
    /// Set when the object is to be kept out of the index (its application's Core Spotlight
    /// delegate said so): its document is removed.
    public var excluded: Bool?

    public init(marker: String, uri: String? = nil, entity: String? = nil, store: String? = nil, displayName: String? = nil,
                text: String? = nil, fields: [String: String]? = nil, values: [String: SortableValue]? = nil, error: String? = nil,
                excluded: Bool? = nil) {
        self.excluded = excluded
        self.marker = marker
        self.uri = uri
        self.entity = entity
        self.store = store
        self.displayName = displayName
        self.text = text
        self.fields = fields
        self.values = values
        self.error = error
    }
}

/// A value a hit list can be sorted by.
public enum SortableValue: Codable, Sendable, Equatable {
    case number(Double)
    case text(String)

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) { self = .number(number) } else { self = .text(try container.decode(String.self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        }
    }
}

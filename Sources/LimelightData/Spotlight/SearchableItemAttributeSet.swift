import Foundation

/// What the Spotlight index holds of one object, as an application's `CoreDataCoreSpotlightDelegate`
/// describes it: Core Spotlight's attribute set, with the attributes a search reads. Every
/// text attribute is searched by plain words and by its name (`title:salsa`, `keywords:mexican`);
/// `displayName` (or else `title`) is what a hit shows.
public struct SearchableItemAttributeSet: Sendable, Equatable {
    /// The name a hit is shown by; `title` when not set.
    public var displayName: String?
    public var title: String?
    /// A short description, searched and shown in snippets.
    public var contentDescription: String?
    /// The object's full text.
    public var textContent: String?
    public var keywords: [String]?
    public var authorNames: [String]?
    /// Text attributes of the application's own, by name: each searchable as `name:word`. Names
    /// are letters, digits and underscores, starting with a letter.
    public var customAttributes: [String: String] = [:]

    public init(displayName: String? = nil, title: String? = nil, contentDescription: String? = nil, textContent: String? = nil,
                keywords: [String]? = nil) {
        self.displayName = displayName
        self.title = title
        self.contentDescription = contentDescription
        self.textContent = textContent
        self.keywords = keywords
    }

    /// The searchable texts by attribute name, empty ones left out; lists are joined by spaces,
    /// and a custom attribute named like a standard one takes its text too.
    public var searchableTexts: [String: String] {
        var texts = customAttributes.filter { !$0.value.isEmpty }
        for (name, text) in [("title", title), ("contentDescription", contentDescription), ("textContent", textContent),
                             ("keywords", keywords?.joined(separator: " ")), ("authorNames", authorNames?.joined(separator: " "))] {
            guard let text, !text.isEmpty else { continue }
            texts[name] = texts[name].map { $0 + " " + text } ?? text
        }
        return texts
    }

    // The form a marker file carries it in: a property-list dictionary.
    static let displayNameKey = "displayName", titleKey = "title", contentDescriptionKey = "contentDescription"
    static let textContentKey = "textContent", keywordsKey = "keywords", authorNamesKey = "authorNames", customKey = "custom"

    /// The attribute set as a property-list dictionary.
    public var propertyList: [String: Any] {
        var plist: [String: Any] = [:]
        plist[Self.displayNameKey] = displayName
        plist[Self.titleKey] = title
        plist[Self.contentDescriptionKey] = contentDescription
        plist[Self.textContentKey] = textContent
        plist[Self.keywordsKey] = keywords
        plist[Self.authorNamesKey] = authorNames
        if !customAttributes.isEmpty { plist[Self.customKey] = customAttributes }
        return plist
    }

    /// Reads the dictionary `propertyList` makes; values of the wrong type are left out.
    public init(propertyList plist: [String: Any]) {
        displayName = plist[Self.displayNameKey] as? String
        title = plist[Self.titleKey] as? String
        contentDescription = plist[Self.contentDescriptionKey] as? String
        textContent = plist[Self.textContentKey] as? String
        keywords = (plist[Self.keywordsKey] as? [Any])?.compactMap { $0 as? String }
        authorNames = (plist[Self.authorNamesKey] as? [Any])?.compactMap { $0 as? String }
        customAttributes = (plist[Self.customKey] as? [String: Any])?.compactMapValues { $0 as? String } ?? [:]
    }

    /// Why the set cannot be indexed, or `nil`: a custom attribute's name must work as a field
    /// name in a query (letters, digits and underscores, starting with a letter).
    func problem() -> String? {
        for name in customAttributes.keys.sorted() {
            guard let first = name.unicodeScalars.first, CharacterSet.letters.contains(first),
                  name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "_" }) else {
                return "the custom attribute name '\(name)' is not letters, digits and underscores starting with a letter"
            }
        }
        return nil
    }
}

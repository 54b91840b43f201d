/// One element of an XML document as `XMLReader` gives it: name, attributes in document order,
/// child elements and the character data directly inside.
///
/// Comments and processing instructions are not kept, and the text of an element with mixed
/// content is one string beside its children, not interleaved with them: the files read here
/// (Xcode models, property lists) have no mixed content. Named apart from Foundation's
/// `XMLElement`, which files using this also see.
package struct XMLTreeElement: Sendable {
    package var name: String
    /// In document order; names are unique (the reader refuses a repeated one).
    package var attributes: [(name: String, value: String)]
    package var children: [XMLTreeElement]
    /// Character data directly inside this element, its pieces joined: entity and character
    /// references replaced, CDATA sections included, line ends as line feeds.
    package var text: String
    /// Where the start tag began, 1-based, for messages about the element's content.
    package var line: Int
    package var column: Int

    package init(name: String, attributes: [(name: String, value: String)] = [], children: [XMLTreeElement] = [],
                 text: String = "", line: Int = 0, column: Int = 0) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
        self.column = column
    }

    /// The value of the attribute `name`, if the element has it.
    package subscript(attribute name: String) -> String? {
        for attribute in attributes where attribute.name == name { return attribute.value }
        return nil
    }

    /// The attributes as a dictionary, for readers that look them up by name.
    package var attributeDictionary: [String: String] {
        var result: [String: String] = [:]
        result.reserveCapacity(attributes.count)
        for attribute in attributes { result[attribute.name] = attribute.value }
        return result
    }

    /// Whether the character data inside is only white space (the indentation between children).
    package var hasOnlyWhitespaceText: Bool {
        text.utf8.allSatisfy(XMLScanner.isWhitespace)
    }

    /// The element as XML text on one line, the way model files keep elements they do not
    /// interpret: attributes in their order, whitespace-only text between children left out
    /// (the writer indents on its own), an element with nothing inside written as `<name/>`.
    package var xmlString: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        out += "<"
        out += name
        for attribute in attributes {
            out += " "
            out += attribute.name
            out += "=\""
            out += XMLEscaping.escaped(attribute.value, inAttribute: true)
            out += "\""
        }
        let keepsText = !text.isEmpty && (children.isEmpty || !hasOnlyWhitespaceText)
        guard keepsText || !children.isEmpty else {
            out += "/>"
            return
        }
        out += ">"
        if keepsText { out += XMLEscaping.escaped(text, inAttribute: false) }
        for child in children { child.write(into: &out) }
        out += "</"
        out += name
        out += ">"
    }
}

extension XMLTreeElement: Equatable {
    /// Same name, attributes (in order), children and text; where an element was found is not
    /// part of what it is.
    package static func == (lhs: XMLTreeElement, rhs: XMLTreeElement) -> Bool {
        lhs.name == rhs.name && lhs.text == rhs.text && lhs.attributes.count == rhs.attributes.count
            && zip(lhs.attributes, rhs.attributes).allSatisfy { $0.name == $1.name && $0.value == $1.value }
            && lhs.children == rhs.children
    }
}

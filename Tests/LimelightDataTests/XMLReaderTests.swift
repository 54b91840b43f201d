import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import LimelightData

/// The XML reader: the same trees as Foundation's parser for real model files and for documents
/// using every construct it reads; malformed documents refused with the line and column; element
/// text written back by `xmlString` reads the same again.
@Suite struct XMLReaderTests {
    static var modelFiles: [URL] {
        let root = ModelXMLTests.fixtures
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { $0.lastPathComponent == "contents" && $0.deletingLastPathComponent().pathExtension == "xcdatamodel" }
            .sorted { $0.path < $1.path }
    }

    // MARK: Against Foundation

    /// What Foundation's parser makes of a document, in the reader's form. Its text nodes are
    /// compared where the reader keeps them whole, in elements without children (Foundation drops
    /// the white space between elements and keeps the pieces of mixed content apart).
    static func foundationTree(_ data: Data) throws -> XMLTreeElement {
        func convert(_ element: XMLElement) -> XMLTreeElement {
            let children = (element.children ?? []).compactMap { $0 as? XMLElement }.map(convert)
            let attributes = (element.attributes ?? []).map { (name: $0.name ?? "", value: $0.stringValue ?? "") }
            return XMLTreeElement(name: element.name ?? "", attributes: attributes, children: children,
                                  text: children.isEmpty ? element.stringValue ?? "" : "")
        }
        return convert(try #require(try XMLDocument(data: data, options: []).rootElement()))
    }

    static func leafTextOnly(_ element: XMLTreeElement) -> XMLTreeElement {
        var copy = element
        copy.children = element.children.map(leafTextOnly)
        if !copy.children.isEmpty { copy.text = "" }
        return copy
    }

    static func withoutIndentation(_ element: XMLTreeElement) -> XMLTreeElement {
        var copy = element
        copy.children = element.children.map(withoutIndentation)
        if !copy.children.isEmpty, copy.hasOnlyWhitespaceText { copy.text = "" }
        return copy
    }

    @Test func everyFixtureModelReadsAsFoundationReadsIt() throws {
        #expect(Self.modelFiles.count >= 5)
        for file in Self.modelFiles {
            let data = try Data(contentsOf: file)
            let ours = try XMLReader.parse(data)
            #expect(Self.leafTextOnly(ours) == (try Self.foundationTree(data)), "\(file.lastPathComponent)")
            #expect(ours.name == "model" && !ours.children.isEmpty)
        }
    }

    static let everyConstruct = """
        \u{FEFF}<?xml version="1.0" encoding="UTF-8" standalone="no"?>
        <!-- a comment with <tags> & ampersands -->
        <?editor cursor="3"?>
        <!DOCTYPE root SYSTEM "root.dtd" [
            <!ELEMENT root ANY>
            <!ATTLIST root version CDATA "1">
            <!-- a ] and a > inside the subset -->
            <!ENTITY note "a ] and a > in a quoted string">
        ]>
        <root version='2' empty="" quote='say "hi"' apostrophe="it's">
            <entities amp="&amp;" lt="&lt;" gt="&gt;" quot="&quot;" apos="&apos;">&amp;&lt;&gt;&quot;&apos;</entities>
            <numeric decimal="&#65;&#233;" hex="&#x1F600;&#x41;">&#8364; &#x263A;</numeric>
            <cdata><![CDATA[<not> &an; element]]></cdata>
            <mixed>before<!-- hidden --><inner/>after</mixed>
            <spaced   a = "1"   b='2'  />
            <unicode name="café">日本語 ünïcödé 🌶</unicode>
            <?inside a processing instruction?>
            <deep><er><still level="3">bottom</still></er></deep>
        </root>
        <!-- trailing comment -->

        """

    @Test func everyConstructReadsAsFoundationReadsIt() throws {
        let data = Data(Self.everyConstruct.utf8)
        let ours = try XMLReader.parse(data)
        #expect(Self.leafTextOnly(ours) == (try Self.foundationTree(data)))
        let child = { (name: String) in ours.children.first { $0.name == name } }
        #expect(ours.attributes.map(\.name) == ["version", "empty", "quote", "apostrophe"])
        #expect(ours[attribute: "quote"] == "say \"hi\"" && ours[attribute: "apostrophe"] == "it's" && ours[attribute: "empty"] == "")
        #expect(child("entities")?.text == "&<>\"'")
        #expect(child("entities")?.attributes.map(\.value) == ["&", "<", ">", "\"", "'"])
        #expect(child("numeric")?[attribute: "decimal"] == "Aé" && child("numeric")?[attribute: "hex"] == "😀A")
        #expect(child("numeric")?.text == "€ ☺")
        #expect(child("cdata")?.text == "<not> &an; element")
        #expect(child("mixed")?.text == "beforeafter" && child("mixed")?.children.map(\.name) == ["inner"])
        #expect(child("spaced")?.attributes.map { "\($0.name)=\($0.value)" } == ["a=1", "b=2"])
        #expect(child("unicode")?.text == "日本語 ünïcödé 🌶" && child("unicode")?[attribute: "name"] == "café")
        #expect(child("deep")?.children.first?.children.first?.text == "bottom")
    }

    @Test func lineEndsAndAttributeWhitespaceAreNormalized() throws {
        let element = try XMLReader.parse(Data("<a t=\"one\ttwo\nthree\r\nfour\rfive\" r=\"&#10;&#9;\">x\r\ny\rz<![CDATA[\r\n]]></a>".utf8))
        #expect(element[attribute: "t"] == "one two three four five")
        #expect(element[attribute: "r"] == "\n\t")
        #expect(element.text == "x\ny\nz\n")
    }

    // MARK: Malformed documents

    static let malformed: [(xml: String, reason: String, line: Int, column: Int)] = [
        ("<model>\n  <entity name=\"A\">", "the file ends inside <entity>", 2, 20),
        ("<a>\n  <b></c></a>", "</c> does not close <b>", 2, 6),
        ("<a>&nope;</a>", "unknown entity '&nope;'", 1, 4),
        ("<a>fish & chips</a>", "'&' must start an entity reference", 1, 9),
        ("<a>&#0;</a>", "character reference to U+0", 1, 4),
        ("<a>&#x110000;</a>", "beyond U+10FFFF", 1, 4),
        ("<a>&#12</a>", "malformed character reference", 1, 4),
        ("<a>&#X41;</a>", "malformed character reference", 1, 4),
        ("<a/>\ntrailing", "text after the root element", 2, 1),
        ("<a/><b/>", "a second element after the root element", 1, 5),
        ("hello<a/>", "text before the root element", 1, 1),
        ("<a x=\"1 < 2\"/>", "'<' is not allowed in an attribute value", 1, 9),
        ("<a x=1/>", "must be in quotes", 1, 6),
        ("<a x=\"1\" x=\"2\"/>", "attribute 'x' given twice", 1, 10),
        ("<a x=\"1\"y=\"2\"/>", "expected white space", 1, 9),
        ("<a x/>", "expected '=' after attribute name 'x'", 1, 5),
        ("<a x=\"unclosed/>", "ends inside the value of attribute 'x'", 1, 17),
        ("<a><!-- open", "ends inside a comment", 1, 4),
        ("<a><!-- a -- b --></a>", "'--' is not allowed inside a comment", 1, 11),
        ("<a><![CDATA[ open", "ends inside a CDATA section", 1, 4),
        ("<a>]]></a>", "']]>' is not allowed in text", 1, 4),
        ("", "no root element", 1, 1),
        ("<?xml version=\"1.0\"?>\n<!-- only -->\n", "no root element", 3, 1),
        ("\n<?xml version=\"1.0\"?><a/>", "XML declaration is only allowed at the very start", 2, 1),
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>", "unsupported encoding 'ISO-8859-1'", 1, 21),
        ("<?xml encoding=\"UTF-8\"?><a/>", "has no version", 1, 1),
        ("<!DOCTYPE a [ <!ENTITY x \"y\"> <a/>", "ends inside the DOCTYPE", 1, 1),
        ("<a/><!DOCTYPE a>", "DOCTYPE is only allowed once, before the root element", 1, 5),
        ("<a>\u{1}</a>", "control character U+1", 1, 4),
        ("<a><1/></a>", "expected an element name after '<'", 1, 5),
        ("<a></a >x</a>", "text after the root element", 1, 9),
        ("<a>é</b>", "</b> does not close <a>", 1, 5),
        ("<a/ >", "expected '>' after '/'", 1, 3),
        ("\u{FEFF}<a>&x;</a>", "unknown entity '&x;'", 1, 4),
        ("<a>\r\n\tx\ry</b>", "</b> does not close <a>", 3, 2),
    ]

    @Test func malformedDocumentsAreRefusedWithLineAndColumn() {
        for (xml, reason, line, column) in Self.malformed {
            #expect { try XMLReader.parse(xml) } throws: { error in
                guard let error = error as? XMLReaderError else { return false }
                let matches = error.reason.contains(reason) && error.line == line && error.column == column
                if !matches { Issue.record("\(xml.debugDescription): got \(error), expected line \(line), column \(column): \(reason)") }
                return matches
            }
        }
    }

    @Test func invalidEncodingsAreRefused() {
        let cases: [([UInt8], String)] = [
            ([0x3C, 0x61, 0x3E, 0xFF, 0x3C, 0x2F, 0x61, 0x3E], "invalid UTF-8"),
            ([0x3C, 0x61, 0x3E, 0xC0, 0xAF, 0x3C, 0x2F, 0x61, 0x3E], "invalid UTF-8"),        // overlong '/'
            ([0x3C, 0x61, 0x3E, 0xED, 0xA0, 0x80, 0x3C, 0x2F, 0x61, 0x3E], "invalid UTF-8"),  // a surrogate
            ([0x3C, 0x61, 0x3E, 0xE2, 0x82], "invalid UTF-8"),                                  // cut short
            ([0xFF, 0xFE, 0x3C, 0x00, 0x61, 0x00], "UTF-16"),
        ]
        for (bytes, reason) in cases {
            #expect { try XMLReader.parse(Data(bytes)) } throws: { error in
                (error as? XMLReaderError)?.reason.contains(reason) == true
            }
        }
    }

    /// Every prefix of a real model file (every third, to keep the test quick) is a truncated
    /// file: refused, never read as a model.
    @Test func everyTruncationOfAModelFileIsRefused() throws {
        let file = try #require(Self.modelFiles.first { $0.path.contains("EveryType") })
        let data = try Data(contentsOf: file)
        let end = try #require(data.lastRange(of: Data("</model>".utf8))).upperBound
        for length in stride(from: 0, to: end, by: 3) {
            #expect(throws: XMLReaderError.self, "length \(length)") { try XMLReader.parse(data.prefix(length)) }
        }
        #expect(try XMLReader.parse(data.prefix(end)).name == "model")
    }

    @Test func nestingIsLimited() throws {
        let depth = XMLReader.maximumDepth
        let fits = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        #expect(try XMLReader.parse(fits).name == "a")
        let tooDeep = String(repeating: "<a>", count: depth + 1) + String(repeating: "</a>", count: depth + 1)
        #expect { try XMLReader.parse(tooDeep) } throws: { error in
            (error as? XMLReaderError)?.reason.contains("nested deeper") == true
        }
    }

    /// Repeated attributes are found among many as among few, without a quadratic search.
    @Test func manyAttributesAreCheckedForRepeats() throws {
        let names = (0..<20_000).map { "a\($0)" }
        let many = try XMLReader.parse("<e " + names.map { "\($0)=\"\($0)\"" }.joined(separator: " ") + "/>")
        #expect(many.attributes.count == 20_000 && many[attribute: "a19999"] == "a19999")
        for count in [3, 16, 17, 40] {
            let xml = "<e " + names.prefix(count).map { "\($0)=\"1\"" }.joined(separator: " ") + " a1=\"again\"/>"
            #expect { try XMLReader.parse(xml) } throws: { error in
                (error as? XMLReaderError)?.reason == "attribute 'a1' given twice in <e>"
            }
        }
    }

    @Test func aModelFileWithBadXMLIsNamedWithItsPosition() {
        #expect { try ManagedObjectModel(xmlData: Data("<model>\n<entity name=\"A\"></model>".utf8), source: "bad/contents") } throws: { error in
            "\(error)".contains("malformed model XML at line 2, column 18: </model> does not close <entity>") && "\(error)".contains("bad/contents")
        }
    }

    // MARK: Writing back

    @Test func xmlStringEscapesAndReadsBackTheSame() throws {
        let element = XMLTreeElement(name: "note", attributes: [("title", "a < b & \"c\" > d"), ("lines", "one\ntwo\tthree\r")],
                                     children: [XMLTreeElement(name: "empty"), XMLTreeElement(name: "body", text: "x < y & z > w\r\n 'q' \"r\"")])
        #expect(element.xmlString == #"<note title="a &lt; b &amp; &quot;c&quot; &gt; d" lines="one&#10;two&#9;three&#13;"><empty/><body>x &lt; y &amp; z &gt; w&#13;"# + "\n" + #" 'q' "r"</body></note>"#)
        #expect(try XMLReader.parse(element.xmlString) == element)
    }

    @Test func everyElementOfTheFixtureModelsReadsBackFromItsXMLString() throws {
        for file in Self.modelFiles {
            let root = try XMLReader.parse(try Data(contentsOf: file))
            #expect(try XMLReader.parse(root.xmlString) == Self.withoutIndentation(root), "\(file.lastPathComponent)")
            for child in root.children {
                #expect(try XMLReader.parse(child.xmlString) == Self.withoutIndentation(child))
            }
        }
        let elements = try XMLReader.parse(#"<elements><element name="A" positionX="1"/>  <element name="B"/></elements>"#)
        #expect(elements.xmlString == #"<elements><element name="A" positionX="1"/><element name="B"/></elements>"#)
    }
}

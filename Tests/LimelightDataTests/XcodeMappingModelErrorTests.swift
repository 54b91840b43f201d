import Foundation
import Testing
@testable import LimelightData

/// Xcode mapping models that cannot be compiled: each error names the file, and the object and
/// attribute at fault.
@Suite struct XcodeMappingModelErrorTests {
    /// The error reading the fixture's XML after `edit`.
    func error(_ edit: (String) -> String) throws -> String {
        let text = try String(contentsOf: ShopVersions.mappingXML, encoding: .utf8)
        let edited = edit(text)
        #expect(edited != text)
        let folder = try TemporaryFolder()
        let file = folder.file("Broken.xcmappingmodel")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        try edited.write(to: file.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        do {
            _ = try MappingModel(contentsOf: file, sourceModel: ShopVersions.version1(), destinationModel: ShopVersions.version2())
        } catch {
            let message = "\(error)"
            #expect(message.contains("Broken.xcmappingmodel/xcmapping.xml"))
            return message
        }
        Issue.record("the edited mapping model was read")
        return ""
    }

    @Test func aTruncatedFile() throws {
        let message = try error { String($0.prefix($0.count / 2)) }
        #expect(message.contains("malformed mapping model XML at line"))
    }

    @Test func anUnknownMappingType() throws {
        let message = try error {
            $0.replacingOccurrences(of: #"<attribute name="mappingtypename" type="string">Copy</attribute>"#,
                                    with: #"<attribute name="mappingtypename" type="string">Duplicate</attribute>"#)
        }
        #expect(message.contains("object z103") && message.contains("TagToTag") && message.contains("mappingtypename 'Duplicate'"))
    }

    @Test func aValueExpressionThatDoesNotDecode() throws {
        let junk = Data("not an archive".utf8).base64EncodedString()
        let message = try error { text in
            guard let start = text.range(of: #"<attribute name="valueexpressiondata" type="binary">"#),
                  let end = text.range(of: "</attribute>", range: start.upperBound..<text.endIndex) else { return text }
            return text.replacingCharacters(in: start.upperBound..<end.lowerBound, with: junk)
        }
        #expect(message.contains("object z121") && message.contains("ProductToProduct.price") && message.contains("valueexpressiondata does not decode"))
    }

    @Test func aValueExpressionThatIsNotBase64() throws {
        let message = try error {
            $0.replacingOccurrences(of: #"<attribute name="valueexpressiondata" type="binary">"#,
                                    with: #"<attribute name="valueexpressiondata" type="binary">!!"#)
        }
        #expect(message.contains("ProductToProduct.price") && message.contains("valueexpressiondata is not base64"))
    }

    @Test func aWrittenExpressionThatDoesNotParse() throws {
        let message = try error {
            $0.replacingOccurrences(of: #"<attribute name="sourcekeypath" type="string">$source.customer</attribute>"#,
                                    with: #"<attribute name="sourcekeypath" type="string">$source.(customer</attribute>"#)
        }
        #expect(message.contains("object z141") && message.contains("OrderToOrder.client") && message.contains("sourcekeypath '$source.(customer'"))
    }

    @Test func aFilterThatDoesNotParse() throws {
        let message = try error { $0.replacingOccurrences(of: "priceInCents &gt; 0", with: "priceInCents &gt;") }
        #expect(message.contains("object z102") && message.contains("sourcefilterpredicatestring 'priceInCents >'"))
    }

    @Test func anEntityTheModelDoesNotHave() throws {
        let message = try error {
            $0.replacingOccurrences(of: #"<attribute name="sourcename" type="string">Customer</attribute>"#,
                                    with: #"<attribute name="sourcename" type="string">Shopper</attribute>"#)
        }
        #expect(message.contains("object z101") && message.contains("sourcename Shopper is no entity of the source model"))
    }

    @Test func aMappingThatIsNotInTheFile() throws {
        let message = try error { $0.replacingOccurrences(of: #"idrefs="z104 z101"#, with: #"idrefs="z104 z999"#) }
        #expect(message.contains("object z100") && message.contains("z999, which the file does not have"))
    }

    @Test func notAMappingModel() throws {
        let message = try error { _ in "<?xml version=\"1.0\"?>\n<model/>\n" }
        #expect(message.contains("<model>, not the <database>"))
        let noModel = try error { $0.replacingOccurrences(of: #"type="XDDEVMAPPINGMODEL" id="z100""#, with: #"type="XDDEVNOTHING" id="z100""#) }
        #expect(noModel.contains("no XDDEVMAPPINGMODEL object"))
    }
}

import Foundation
import Testing
@testable import LimelightData

/// The property-list writer, XML and binary: Foundation's reader must get back exactly what
/// Foundation's own writer would have stored.
@Suite struct PropertyListWriterTests {
    static var sample: [String: Any] { [
        "NSObjectURI": "x-coredata://A1B2/Note/p42", "NSEntityName": "Note", "NSStoreUUID": "A1B2",
        "values": [
            "title": "Fish & chips <crispy> « é » 🌶", "empty": "", "count": 42, "negative": -7, "big": Int.max, "small": Int.min,
            "unsigned": UInt64.max, "short": Int16(-300), "byte": UInt8(200), "float": Float(0.5),
            "ratio": 0.1, "huge": 1e300, "tiny": -2.5e-308, "whole": 3.0, "done": true, "open": false,
            "when": Date(timeIntervalSinceReferenceDate: 786_000_123), "before1970": Date(timeIntervalSince1970: -86_400 * 400),
            "blob": Data([0, 1, 2, 254, 255]), "nothing": Data(), "tags": ["x-coredata://A1B2/Tag/p1", "x-coredata://A1B2/Tag/p2"],
            "none": [String](), "nested": ["inner": ["deep": 1]], "number": NSNumber(value: 7), "yes": NSNumber(value: true),
            "long text": String(repeating: "ab", count: 300), "long unicode": String(repeating: "é", count: 40),
            "big blob": Data((0..<1000).map { UInt8(truncatingIfNeeded: $0) }),
            "many": (0..<400).map { "item \($0)" },
        ] as [String: Any],
    ] }

    func readBack(_ data: Data) throws -> NSDictionary {
        NSDictionary(dictionary: try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]))
    }

    @Test(arguments: [PropertyListWriter.Format.xml, .binary])
    func foundationReadsBackWhatFoundationWouldHaveWritten(format: PropertyListWriter.Format) throws {
        let ours = try PropertyListWriter.data(Self.sample, format: format)
        let theirs = try PropertyListSerialization.data(fromPropertyList: Self.sample, format: format == .xml ? .xml : .binary, options: 0)
        #expect(ours.starts(with: Data((format == .xml ? "<?xml" : "bplist00").utf8)))
        #expect(try readBack(ours).isEqual(to: try #require(readBack(theirs) as? [AnyHashable: Any])))
        let values = try #require(try readBack(ours)["values"] as? [String: Any])
        #expect((values["many"] as? [String])?.count == 400)
        #expect(values["unsigned"] as? UInt64 == UInt64.max)
        #expect(values["small"] as? Int == Int.min)
    }

    /// An integer 1 stays an integer and `true` stays a boolean, in both forms.
    @Test func integersAndBooleansKeepTheirKind() throws {
        let xml = String(decoding: try PropertyListWriter.data(["one": 1, "yes": true, "n": NSNumber(value: 1)], format: .xml), as: UTF8.self)
        #expect(xml.contains("<key>one</key>\n\t<integer>1</integer>") && xml.contains("<key>yes</key>\n\t<true/>"))
        #expect(xml.contains("<key>n</key>\n\t<integer>1</integer>"))
        let binary = try PropertyListWriter.data(["one": 1, "yes": true], format: .binary)
        #expect(binary.contains(0x09) && binary.contains(0x10))
    }

    /// The metadata of a store Core Data wrote goes through the writer unchanged.
    @Test func aCoreDataStoresMetadataRoundTrips() throws {
        let original = try CoreDataFixtureTests.metadataBlob()
        let metadata = try #require(try PropertyListSerialization.propertyList(from: original, format: nil) as? [String: Any])
        #expect(metadata["NSStoreModelVersionHashes"] is [String: Any])
        for format in [PropertyListWriter.Format.binary, .xml] {
            #expect(try readBack(PropertyListWriter.data(metadata, format: format)).isEqual(to: metadata))
        }
    }

    @Test func markerContentRoundTripsThroughTheWriter() throws {
        let content = MarkerContent(objectURI: "x-coredata://S/Note/p7", entityName: "Note", storeIdentifier: "S",
                                    values: ["title": "a < b", "count": 3, "when": Date(timeIntervalSince1970: 1_700_000_000)])
        let plist: [String: Any] = [MarkerContent.uriKey: content.objectURI, MarkerContent.entityKey: content.entityName,
                                    MarkerContent.storeKey: content.storeIdentifier, MarkerContent.valuesKey: content.values]
        let viaFoundation = try MarkerContent.decode(try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0),
                                                     path: "p7.note")
        for format in [ExternalRecordsConfiguration.FileFormat.xml, .binary] {
            let decoded = try MarkerContent.decode(try content.encoded(format: format), path: "p7.note")
            #expect(decoded == viaFoundation)
            #expect(decoded.objectURI == content.objectURI && decoded.entityName == "Note" && decoded.storeIdentifier == "S")
            #expect(decoded.values["title"] as? String == "a < b")
        }
    }

    @Test func valuesAPropertyListCannotHoldAreRefusedByWhereTheyAre() {
        #expect {
            try PropertyListWriter.data(["values": ["list": ["a", URL(fileURLWithPath: "/")]]], format: .binary)
        } throws: { error in
            "\(error)".contains("values.list[1]") && "\(error)".contains("URL")
        }
    }

    /// A date no `time_t` holds trapped the XML writer. The fuzzer's find: a binary marker file
    /// whose date value is 9.4e24 s (bytes `33 45 14 00 00 00 00 00 00`), written again as XML.
    /// Such dates are written as the formatter writes them.
    @Test func datesBeyondTimeTAreWrittenAsTheFormatterWritesThem() throws {
        for seconds in [Double(bitPattern: 0x4514_0000_0000_0000), 1e300, -.infinity, 9e15] {
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            let binary = try PropertyListWriter.data(["NSObjectURI": "x-coredata://S/Item/p1", "NSEntityName": "Item",
                                                      "values": ["created": date]] as [String: Any], format: .binary)
            let content = try MarkerContent.decode(binary, path: "1.rec")
            let xml = String(decoding: try content.encoded(format: .xml), as: UTF8.self)
            #expect(xml.contains("<date>\(ISO8601DateFormatter().string(from: date))</date>"), "\(seconds)")
        }
    }
}

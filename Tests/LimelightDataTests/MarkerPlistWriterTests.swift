import Foundation
import Testing
@testable import LimelightData

/// The marker's own XML property-list writer: Foundation's reader must get back exactly what
/// Foundation's writer would have stored.
@Suite struct MarkerPlistWriterTests {
    static var sample: [String: Any] { [
        "NSObjectURI": "x-coredata://A1B2/Note/p42", "NSEntityName": "Note", "NSStoreUUID": "A1B2",
        "values": [
            "title": "Fish & chips <crispy> « é »", "empty": "", "count": 42, "negative": -7, "big": Int.max,
            "ratio": 0.1, "huge": 1e300, "tiny": -2.5e-308, "whole": 3.0, "done": true, "open": false,
            "when": Date(timeIntervalSinceReferenceDate: 786_000_123), "before1970": Date(timeIntervalSince1970: -86_400 * 400),
            "blob": Data([0, 1, 2, 254, 255]), "nothing": Data(), "tags": ["x-coredata://A1B2/Tag/p1", "x-coredata://A1B2/Tag/p2"],
            "none": [String](), "nested": ["inner": ["deep": 1]],
        ] as [String: Any],
    ] }

    @Test func foundationReadsBackWhatFoundationWouldHaveWritten() throws {
        let ours = try #require(MarkerPlistWriter.xml(Self.sample))
        let theirs = try PropertyListSerialization.data(fromPropertyList: Self.sample, format: .xml, options: 0)
        let fromOurs = try PropertyListSerialization.propertyList(from: ours, format: nil)
        let fromTheirs = try PropertyListSerialization.propertyList(from: theirs, format: nil)
        #expect(NSDictionary(dictionary: try #require(fromOurs as? [String: Any])).isEqual(to: try #require(fromTheirs as? [String: Any])))
    }

    @Test func markerContentRoundTripsThroughTheWriter() throws {
        let content = MarkerContent(objectURI: "x-coredata://S/Note/p7", entityName: "Note", storeIdentifier: "S",
                                    values: ["title": "a < b", "count": 3, "when": Date(timeIntervalSince1970: 1_700_000_000)])
        let decoded = try MarkerContent.decode(try content.encoded(format: .xml), path: "p7.note")
        let plist: [String: Any] = [MarkerContent.uriKey: content.objectURI, MarkerContent.entityKey: content.entityName,
                                    MarkerContent.storeKey: content.storeIdentifier, MarkerContent.valuesKey: content.values]
        let viaFoundation = try MarkerContent.decode(try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0),
                                                     path: "p7.note")
        #expect(decoded == viaFoundation)
        #expect(decoded.objectURI == content.objectURI && decoded.entityName == "Note" && decoded.storeIdentifier == "S")
        #expect(decoded.values["title"] as? String == "a < b")
    }

    @Test func valuesAPropertyListCannotHoldAreRefused() {
        #expect(MarkerPlistWriter.xml(["values": ["url": URL(fileURLWithPath: "/")]]) == nil)
    }
}

import Foundation
import Testing
@testable import LimelightData

/// The property-list reader, binary and XML: it reads what the project's writer and Foundation's
/// writer produce, and a store Core Data wrote, to the same values as Foundation's reader, as the
/// Swift types callers cast to.
@Suite struct PropertyListReaderTests {
    /// A value as bytes that say exactly what it holds (keys sorted, numbers by kind, dates to the
    /// bit), for comparing Swift values with Foundation's objects, which do not compare equal on
    /// Linux even when they hold the same.
    static func canonical(_ value: Any) throws -> Data {
        try PropertyListWriter.data(["value": value], format: .binary)
    }

    static func foundation(_ data: Data) throws -> Any {
        try PropertyListSerialization.propertyList(from: data, format: nil)
    }

    @Test(arguments: [PropertyListWriter.Format.xml, .binary])
    func readsWhatTheWriterWrites(format: PropertyListWriter.Format) throws {
        let data = try PropertyListWriter.data(PropertyListWriterTests.sample, format: format)
        let ours = try PropertyListReader.read(data)
        #expect(try Self.canonical(ours) == Self.canonical(Self.foundation(data)))
        let top = try #require(ours as? [String: Any])
        #expect(top["NSEntityName"] as? String == "Note")
        let values = try #require(top["values"] as? [String: Any])
        #expect(values["title"] as? String == "Fish & chips <crispy> « é » 🌶")
        #expect(values["empty"] as? String == "")
        #expect(values["count"] as? Int == 42 && values["negative"] as? Int == -7)
        #expect(values["big"] as? Int == Int.max && values["small"] as? Int == Int.min)
        #expect(values["unsigned"] as? UInt64 == UInt64.max)
        #expect(values["short"] as? Int == -300 && values["byte"] as? Int == 200)
        #expect(values["float"] as? Double == 0.5 && values["ratio"] as? Double == 0.1 && values["huge"] as? Double == 1e300)
        #expect(values["tiny"] as? Double == -2.5e-308 && values["whole"] as? Double == 3.0)
        #expect(values["done"] as? Bool == true && values["open"] as? Bool == false && values["yes"] as? Bool == true)
        #expect(values["number"] as? Int == 7)
        // XML keeps whole seconds.
        let when = try #require(values["when"] as? Date)
        #expect(format == .binary ? when.timeIntervalSinceReferenceDate == 786_000_123 : abs(when.timeIntervalSinceReferenceDate - 786_000_123) < 1)
        #expect(values["before1970"] as? Date == Date(timeIntervalSince1970: -86_400 * 400))
        #expect(values["blob"] as? Data == Data([0, 1, 2, 254, 255]) && values["nothing"] as? Data == Data())
        #expect(values["big blob"] as? Data == Data((0..<1000).map { UInt8(truncatingIfNeeded: $0) }))
        #expect(values["tags"] as? [String] == ["x-coredata://A1B2/Tag/p1", "x-coredata://A1B2/Tag/p2"])
        #expect((values["none"] as? [Any])?.isEmpty == true)
        #expect(((values["nested"] as? [String: Any])?["inner"] as? [String: Any])?["deep"] as? Int == 1)
        #expect(values["long text"] as? String == String(repeating: "ab", count: 300))
        #expect(values["long unicode"] as? String == String(repeating: "é", count: 40))
        #expect((values["many"] as? [String])?.count == 400 && (values["many"] as? [String])?.last == "item 399")
    }

    /// Line ends in strings read back as written, in both formats, as Foundation reads them: a
    /// property list is not XML text whose line ends the specification normalises.
    @Test(arguments: [PropertyListWriter.Format.xml, .binary])
    func keepsCarriageReturnsInStrings(format: PropertyListWriter.Format) throws {
        let text = "l1\r\nl2\rl3\n"
        let data = try PropertyListWriter.data(["text": text], format: format)
        #expect((try PropertyListReader.read(data) as? [String: Any])?["text"] as? String == text)
        #expect((try Self.foundation(data) as? [String: Any])?["text"] as? String == text)
    }

    /// Foundation's writer shares equal objects and sizes integers its own way: read the same.
    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func readsWhatFoundationWrites(format: PropertyListSerialization.PropertyListFormat) throws {
        var sample = PropertyListWriterTests.sample
        sample["repeated"] = Array(repeating: "same", count: 20) + Array(repeating: "é", count: 3)
        sample["numbers"] = [0, 1, 255, 256, 65_535, 65_536, Int(Int32.max), Int(UInt32.max), Int(UInt32.max) + 1, -1, -256]
        let data = try PropertyListSerialization.data(fromPropertyList: sample, format: format, options: 0)
        let ours = try PropertyListReader.read(data)
        #expect(try Self.canonical(ours) == Self.canonical(Self.foundation(data)))
        let top = try #require(ours as? [String: Any])
        #expect(top["numbers"] as? [Int] == [0, 1, 255, 256, 65_535, 65_536, Int(Int32.max), Int(UInt32.max), Int(UInt32.max) + 1, -1, -256])
        #expect((top["repeated"] as? [String])?.suffix(4) == ["same", "é", "é", "é"])
    }

    /// The metadata blob of a store Core Data wrote: what the stores and the migrator cast it to.
    @Test func readsTheMetadataOfAStoreCoreDataWrote() throws {
        let blob = try CoreDataFixtureTests.metadataBlob()
        #expect(blob.starts(with: Data("bplist00".utf8)))

        let metadata = try #require(try PropertyListReader.read(blob) as? [String: Any])
        #expect(try Self.canonical(metadata) == Self.canonical(Self.foundation(blob)))
        let hashes = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(hashes.keys.sorted() == ["Car", "ExpensiveSportCar", "Person", "SportCar"] && hashes.values.allSatisfy { $0.count == 32 })
        #expect(metadata["NSStoreType"] as? String == "SQLite")
        #expect(metadata["NSStoreModelVersionIdentifiers"] as? [String] == ["1"])
        #expect(metadata["NSPersistenceFrameworkVersion"] as? Int == 1044)
        #expect(metadata["NSStoreModelVersionHashesVersion"] as? Int == 3)

        let viaStore = try SQLiteStore.readMetadata(at: CoreDataFixtureTests.fixtures.appendingPathComponent("SampleModel_V1.sqlite"))
        #expect(viaStore["NSStoreModelVersionHashes"] as? [String: Data] == hashes)
    }

    @Test func readsXMLPropertyListsInEveryForm() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <!-- written by hand -->
            <dict>
                <key>text</key>
                <string>  spaced &amp; &lt;escaped&gt; &#x1F336; </string>
                <key>cdata</key><string><![CDATA[<raw> & stuff]]></string>
                <key>empty</key><string/>
                <key>negative</key><integer>-42</integer>
                <key>huge</key><integer>18446744073709551615</integer>
                <key>min</key><integer>-9223372036854775808</integer>
                <key>quarter</key><real>3.25</real>
                <key>exponent</key><real>-1.5e-7</real>
                <key>yes</key><true/>
                <key>no</key><false/>
                <key>when</key><date>2026-11-23T19:09:00Z</date>
                <key>blob</key><data>
                    AAEC
                    /v8=
                </data>
                <key>list</key><array><integer>1</integer><array/><dict/></array>
                <key>ключ</key><string>значение</string>
            </dict>
            </plist>
            """
        let data = Data(xml.utf8)
        let ours = try #require(try PropertyListReader.read(data) as? [String: Any])
        #expect(try Self.canonical(ours) == Self.canonical(Self.foundation(data)))
        #expect(ours["text"] as? String == "  spaced & <escaped> 🌶 ")
        #expect(ours["cdata"] as? String == "<raw> & stuff" && ours["empty"] as? String == "")
        #expect(ours["negative"] as? Int == -42 && ours["huge"] as? UInt64 == UInt64.max && ours["min"] as? Int == Int.min)
        #expect(ours["quarter"] as? Double == 3.25 && ours["exponent"] as? Double == -1.5e-7)
        #expect(ours["yes"] as? Bool == true && ours["no"] as? Bool == false)
        #expect(ours["when"] as? Date == ISO8601Timestamp.date(from: "2026-11-23T19:09:00Z"))
        #expect(ours["blob"] as? Data == Data([0, 1, 2, 254, 255]))
        #expect((ours["list"] as? [Any])?.count == 3 && ours["ключ"] as? String == "значение")

        // The spellings Foundation's reader also takes, and a bare value without <plist>.
        #expect(try PropertyListReader.read(Data("<plist><integer>0x1F</integer></plist>".utf8)) as? Int == 31)
        #expect((try PropertyListReader.read(Data("<plist><real>-infinity</real></plist>".utf8)) as? Double) == -.infinity)
        #expect(try PropertyListReader.read(Data("<string>bare</string>".utf8)) as? String == "bare")
    }

    @Test func readsTheModelBundlesCurrentVersionFile() throws {
        let file = ModelXMLTests.fixtures.appendingPathComponent("SampleModel/SampleModel.xcdatamodeld/.xccurrentversion")
        let info = try #require(try PropertyListReader.read(try Data(contentsOf: file)) as? [String: Any])
        #expect((info["_XCCurrentVersionName"] as? String)?.hasSuffix(".xcdatamodel") == true)
    }

    @Test func malformedXMLPropertyListsAreRefused() {
        let cases: [(String, String)] = [
            ("<plist><dict><key>a</key></dict></plist>", "key without a value"),
            ("<plist><dict><string>a</string><string>b</string></dict></plist>", "expected <key>, found <string>"),
            ("<plist><integer>twelve</integer></plist>", "'twelve' is not an integer"),
            ("<plist><integer>18446744073709551616</integer></plist>", "is not an integer"),
            ("<plist><integer>-9223372036854775809</integer></plist>", "is not an integer"),
            ("<plist><real>fast</real></plist>", "is not a real number"),
            ("<plist><date>yesterday</date></plist>", "is not a date"),
            ("<plist><data>!!!!</data></plist>", "does not hold base64"),
            ("<plist><true>yes</true></plist>", "<true/> holds something"),
            ("<plist><integer> 42 </integer></plist>", "' 42 ' is not an integer"),
            ("<plist><string><b/></string></plist>", "<string> holds <b>"),
            ("<plist><array>loose<string/></array></plist>", "holds text outside its elements"),
            ("<plist><string/><string/></plist>", "exactly one value"),
            ("<plist></plist>", "exactly one value"),
            ("<plist><object/></plist>", "<object> is not a property list element"),
            ("<plist><dict><key>a</key><string>b</string>", "malformed XML at line 1"),
            ("", "malformed XML"),
            ("bplist0", "malformed XML"),
        ]
        for (xml, reason) in cases {
            #expect { try PropertyListReader.read(Data(xml.utf8)) } throws: { error in
                let matches = (error as? PropertyListReadError)?.reason.contains(reason) == true
                if !matches { Issue.record("\(xml): got \(error), expected \(reason)") }
                return matches
            }
        }
        let deep = "<plist>" + String(repeating: "<array>", count: 300) + String(repeating: "</array>", count: 300) + "</plist>"
        #expect { try PropertyListReader.read(Data(deep.utf8)) } throws: { error in
            "\(error)".contains("nested deeper")
        }
    }
}

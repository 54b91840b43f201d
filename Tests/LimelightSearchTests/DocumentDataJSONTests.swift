import Foundation
import Testing
@testable import LimelightSearch

/// The hand-written writer and reader of a hit's document data agree with `JSONEncoder` and
/// `JSONDecoder`, and the reader hands every other shape to `JSONDecoder`.
@Suite struct DocumentDataJSONTests {
    static let awkward = [
        "plain", "", "quote \" and backslash \\ and slash /", "tab\tnewline\nreturn\r", "\u{01}\u{1F} controls",
        "Crème brûlée", "日本語のレシピ", "emoji 🍅🌶️ and a flag 🇲🇽", "e\u{301} combining", "\u{FEFF}bom", "</script>",
    ]

    @Test func readsWhatTheIndexerWrites() throws {
        let encoder = JSONEncoder()
        for (index, text) in Self.awkward.enumerated() {
            let document = IndexLayout.DocumentData(marker: "/records/\(text)/Recipe/\(index).recipe", uri: "x-coredata://S/Recipe/p\(index)",
                                                    entity: text, store: "S", displayName: text)
            // What the indexer writes now, and what it wrote with JSONEncoder before.
            for data in [document.json(), try encoder.encode(document)] {
                #expect(FlatJSONObject.strings(data) != nil, "fast path not taken for \(text.debugDescription)")
                #expect(try IndexLayout.DocumentData.read(data) == document)
            }
        }
    }

    @Test func writesJSONThatAnyReaderTakes() throws {
        for text in Self.awkward + [String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)] {
            let document = IndexLayout.DocumentData(marker: text, uri: text, entity: text, store: text, displayName: text)
            let data = document.json()
            #expect(try JSONDecoder().decode(IndexLayout.DocumentData.self, from: data) == document, "\(text.debugDescription)")
        }
        let plain = IndexLayout.DocumentData(marker: "/r/S/Note/1.note", uri: "x-coredata://S/Note/p1", entity: "Note", store: "S", displayName: "A \"note\"")
        #expect(String(decoding: plain.json(), as: UTF8.self)
            == #"{"marker":"/r/S/Note/1.note","uri":"x-coredata://S/Note/p1","entity":"Note","store":"S","displayName":"A \"note\""}"#)
    }

    @Test func escapesOtherWritersUseReadTheSame() throws {
        let json = #"{ "marker" : "\/m", "uri": "u\u00e9", "entity": "\ud83c\udf45", "store": "s\"", "displayName": "\t" }"#
        let document = try IndexLayout.DocumentData.read(Data(json.utf8))
        #expect(document == (try JSONDecoder().decode(IndexLayout.DocumentData.self, from: Data(json.utf8))))
        #expect(document.uri == "ué" && document.entity == "🍅")
    }

    @Test func otherShapesGoToTheGeneralDecoderOrFail() throws {
        // A field added by a later version: the fast path declines, JSONDecoder reads it.
        let extra = #"{"marker":"m","uri":"u","entity":"e","store":"s","displayName":"d","rank":3}"#
        #expect(FlatJSONObject.strings(Data(extra.utf8)) == nil)
        #expect(try IndexLayout.DocumentData.read(Data(extra.utf8)).displayName == "d")
        for broken in [#"{"marker":"m""#, #"{"marker":"m","marker":"n"}"#, "[]", "", #"{"uri":"\ud83c"}"#, "{\"a\":\"\u{01}\"}"] {
            #expect(FlatJSONObject.strings(Data(broken.utf8)) == nil, "accepted \(broken.debugDescription)")
            #expect(throws: (any Error).self) { try IndexLayout.DocumentData.read(Data(broken.utf8)) }
        }
        #expect(FlatJSONObject.strings(Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x22, 0x22, 0x7D])) == nil)
    }
}

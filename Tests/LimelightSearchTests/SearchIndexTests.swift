import Foundation
import LimelightSearch
import Testing

/// The Swift wrapper over Xapian, against real databases in temporary folders.
struct SearchIndexTests {
    @Test func replaceByUniqueTermKeepsOneDocumentWithTheNewText() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(Scratch.document("a", name: "Salsa", body: "chopped tomato"))
        try index.replaceDocument(Scratch.document("b", name: "Guacamole", body: "mashed avocado"))
        try index.commit()
        try index.replaceDocument(Scratch.document("a", name: "Salsa verde", body: "roasted tomatillo"))
        try index.commit()
        #expect(index.documentCount == 2)
        #expect(try index.contains(uniqueTerm: "Qa"))
        let reader = try SearchIndexReader(path: scratch.path("db"))
        #expect(try ids(reader, "tomatillo") == ["a"])
        #expect(try ids(reader, "chopped").isEmpty)
        #expect(try ids(reader, "avocado") == ["b"])
    }

    @Test func deleteByTermRemovesOnlyThatDocument() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        for id in ["a", "b", "c"] { try index.replaceDocument(Scratch.document(id, name: "Dish \(id)", body: "shared words")) }
        try index.commit()
        try index.deleteDocument(uniqueTerm: "Qb")
        // Deleting what is not there is not an error.
        try index.deleteDocument(uniqueTerm: "Qnothing")
        try index.commit()
        #expect(!(try index.contains(uniqueTerm: "Qb")))
        let reader = try SearchIndexReader(path: scratch.path("db"))
        #expect(try ids(reader, "shared") == ["a", "c"])
        #expect(reader.documentCount == 2)
    }

    @Test func fieldPrefixesLimitWordsToTheirProperty() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(Scratch.document("a", name: "Salsa", body: "served with chips"))
        try index.replaceDocument(Scratch.document("b", name: "Chips", body: "fried salsa dip"))
        try index.commit()
        let reader = try SearchIndexReader(path: scratch.path("db"))
        #expect(try ids(reader, "salsa") == ["a", "b"])
        #expect(try ids(reader, "name:salsa") == ["a"])
        #expect(try ids(reader, "body:salsa") == ["b"])
        #expect(try ids(reader, "name:chips body:salsa") == ["b"])
        // A field the parser was not told about is just a word.
        #expect(try ids(reader, "colour:salsa").isEmpty)
    }

    /// A field's text is written once, under its prefix; plain words search every field the query
    /// or the index knows, and text without a field.
    @Test func textIsIndexedOnceAndPlainWordsSearchEveryField() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(Scratch.document("a", name: "Salsa", body: "chopped tomato"))
        try index.replaceDocument(IndexDocument(uniqueTerm: "Qb", fields: [("", "plain tomato soup")], data: Data("b".utf8)))
        try index.replaceDocument(IndexDocument(uniqueTerm: "Qc", fields: [("XPSUMMARY", "tomato summary")], data: Data("c".utf8)))
        try index.setMetadata("summary", forKey: IndexLayout.fieldsKey)
        try index.commit()
        #expect(try index.uniqueTerms(prefix: "XPNAMEsalsa", valueSlot: 0).count == 1)
        #expect(try index.uniqueTerms(prefix: "salsa", valueSlot: 0).isEmpty)
        #expect(try index.uniqueTerms(prefix: "chopped", valueSlot: 0).isEmpty)
        let reader = try SearchIndexReader(path: scratch.path("db"))
        // The query names name: and body:; the index records summary; plain text needs neither.
        #expect(try ids(reader, "tomato") == ["a", "b", "c"])
        #expect(try ids(reader, "\"chopped tomato\"") == ["a"])
        #expect(try ids(reader, "soup") == ["b"])
        // Told its prefixes, a query searches only those and plain text.
        var only = Scratch.query("tomato")
        only.defaultPrefixes = ["XPBODY"]
        #expect(try ids(reader, only) == ["a", "b"])
    }

    /// Indexes written before each text went in once hold an unprefixed copy too: they match
    /// the same documents, each once, beside documents written now.
    @Test func documentsWithTheOldUnprefixedCopyStillMatchOnce() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(IndexDocument(uniqueTerm: "Qold", fields: [("XPNAME", "Salsa"), ("XPBODY", "chopped tomato"),
                                                                             ("", "Salsa"), ("", "chopped tomato")],
                                                data: Data("old".utf8)))
        try index.replaceDocument(Scratch.document("new", name: "Salsa verde", body: "tomatillo and tomato"))
        try index.commit()
        let reader = try SearchIndexReader(path: scratch.path("db"))
        let hits = try reader.search(Scratch.query("tomato")).hits.map { String(decoding: $0.data, as: UTF8.self) }
        #expect(hits.sorted() == ["new", "old"])
        #expect(try ids(reader, "name:salsa") == ["new", "old"])
        #expect(try ids(reader, "\"chopped tomato\"") == ["old"])
        #expect(try ids(reader, "tomatillo") == ["new"])
    }

    @Test func booleanFiltersFollowQueryParsersColonRule() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(Scratch.document("a", name: "One", body: "common", kind: "Recipe"))
        try index.replaceDocument(Scratch.document("b", name: "Two", body: "common", kind: "Note"))
        // Store UUIDs start with a digit or a capital letter; both must match as filters.
        try index.replaceDocument(Scratch.document("c", name: "Three", body: "common", kind: "9B46B825-F93D-4469-80B1-D7EFD2E2B15C"))
        try index.replaceDocument(Scratch.document("d", name: "Four", body: "common", kind: "F93D4469-9B46-4469-80B1-D7EFD2E2B15C"))
        try index.replaceDocument(Scratch.document("e", name: "Five", body: "common", kind: "lower"))
        try index.commit()
        let reader = try SearchIndexReader(path: scratch.path("db"))
        #expect(try ids(reader, "kind:Recipe") == ["a"])
        #expect(try ids(reader, "common kind:Note") == ["b"])
        #expect(try ids(reader, "kind:9B46B825-F93D-4469-80B1-D7EFD2E2B15C") == ["c"])
        #expect(try ids(reader, "kind:F93D4469-9B46-4469-80B1-D7EFD2E2B15C") == ["d"])
        #expect(try ids(reader, "kind:lower") == ["e"])
        // Two values of one filter are ORed, as QueryParser does for boolean prefixes.
        #expect(try ids(reader, "kind:Recipe kind:Note") == ["a", "b"])
        #expect(try ids(reader, "common NOT kind:Recipe") == ["b", "c", "d", "e"])
    }

    @Test func booleanOperatorsPhrasesAndWildcards() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(Scratch.document("a", name: "Salsa", body: "chopped tomato and onion"))
        try index.replaceDocument(Scratch.document("b", name: "Soup", body: "tomato chopped finely"))
        try index.replaceDocument(Scratch.document("c", name: "Salad", body: "onion rings"))
        try index.commit()
        let reader = try SearchIndexReader(path: scratch.path("db"))
        #expect(try ids(reader, "tomato onion") == ["a"])
        #expect(try ids(reader, "tomato AND onion") == ["a"])
        #expect(try ids(reader, "tomato OR onion") == ["a", "b", "c"])
        #expect(try ids(reader, "tomato NOT onion") == ["b"])
        #expect(try ids(reader, "tomato and not onion") == ["b"])
        #expect(try ids(reader, "\"chopped tomato\"") == ["a"])
        #expect(try ids(reader, "\"tomato chopped\"") == ["b"])
        #expect(try ids(reader, "sal*") == ["a", "c"])
        #expect(try ids(reader, "name:sal*") == ["a", "c"])
        #expect(try ids(reader, "on* NOT sal*").isEmpty)
        #expect(try ids(reader, "").count == 3)
    }

    @Test func stemmingFollowsTheLanguage() throws {
        let scratch = try Scratch()
        let english = try SearchIndex(path: scratch.path("english"))
        try english.replaceDocument(Scratch.document("a", name: "Salsa", body: "chopped tomatoes"))
        try english.commit()
        let reader = try SearchIndexReader(path: scratch.path("english"))
        #expect(try ids(reader, "tomato") == ["a"])
        #expect(try ids(reader, "chopping") == ["a"])
        var exact = Scratch.query("tomato")
        exact.language = "none"
        #expect(try ids(reader, exact).isEmpty)
        exact.text = "tomatoes"
        #expect(try ids(reader, exact) == ["a"])

        let french = try SearchIndex(path: scratch.path("french"), language: "french")
        try french.replaceDocument(Scratch.document("f", name: "Soupe", body: "les tomates hachées"))
        try french.commit()
        var query = Scratch.query("tomate")
        query.language = "french"
        #expect(try ids(try SearchIndexReader(path: scratch.path("french")), query) == ["f"])
    }

    /// Words are written once, as they are; a search reaches a word's other forms through the stem
    /// table the writers keep, whichever writer met the word first.
    @Test func wordsAreWrittenUnstemmedAndFoundThroughTheirStems() throws {
        let scratch = try Scratch()
        let path = scratch.path("db")
        do {
            let index = try SearchIndex(path: path)
            try index.replaceDocument(Scratch.document("a", name: "Salsa", body: "chopped tomatoes"))
            try index.commit()
            #expect(try index.uniqueTerms(prefix: "Z", valueSlot: 0).isEmpty)
        }
        do {
            // Another writer, which has met none of these words.
            let index = try SearchIndex(path: path)
            try index.replaceDocument(Scratch.document("b", name: "Salsas", body: "a tomato, chopping"))
            try index.commit()
        }
        let reader = try SearchIndexReader(path: path)
        #expect(try ids(reader, "tomato") == ["a", "b"])
        #expect(try ids(reader, "tomatoes") == ["a", "b"])
        #expect(try ids(reader, "chop") == ["a", "b"])
        #expect(try ids(reader, "name:salsa") == ["a", "b"])
        #expect(try ids(reader, "body:salsa").isEmpty)
        // Both have a form of "chop".
        #expect(try ids(reader, "tomato NOT chopped").isEmpty)
        // A capitalised word is taken as written, and a phrase matches the words as written.
        #expect(try ids(reader, "Tomatoes") == ["a"])
        #expect(try ids(reader, "\"chopped tomatoes\"") == ["a"])
        #expect(try ids(reader, "\"chopped tomato\"").isEmpty)
    }

    /// A writer that forgot which words it recorded (as an idle daemon does, to give the memory
    /// back) records them again when it meets them, and searches find every form as before.
    @Test func aWriterThatForgotItsRecordedStemsRecordsThemAgain() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(Scratch.document("a", name: "Salsa", body: "chopped tomatoes"))
        try index.commit()
        index.forgetRecordedStems()
        try index.replaceDocument(Scratch.document("b", name: "Soup", body: "a tomato, chopping"))
        try index.commit()
        index.forgetRecordedStems()
        index.forgetRecordedStems()
        try index.replaceDocument(Scratch.document("c", name: "Stew", body: "no fruit"))
        try index.commit()
        let reader = try SearchIndexReader(path: scratch.path("db"))
        #expect(try ids(reader, "tomatoes") == ["a", "b"])
        #expect(try ids(reader, "chop") == ["a", "b"])
        #expect(try ids(reader, "fruits") == ["c"])
    }

    /// Each field's forms of a word are weighed apart, as its stemmed term was: a word rare in
    /// names but common in texts makes the one name that has it the best match.
    @Test func aStemmedWordWeighsByTheFieldItIsFoundIn() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        for number in 1...5 {
            try index.replaceDocument(Scratch.document("soup\(number)", name: "Soup \(number)", body: "tomatoes soup"))
        }
        try index.replaceDocument(Scratch.document("named", name: "Tomatoes",
                                                   body: "a longer description of a dish that has many other words in it"))
        try index.commit()
        let hits = try ids(try SearchIndexReader(path: scratch.path("db")), Scratch.query("tomato"))
        #expect(hits.count == 6)
        #expect(hits.first == "named")
    }

    /// Indexes written before stems moved to the synonym table hold a stemmed copy of each word
    /// ("Z" + prefix + stem); searches still find their documents.
    @Test func stemmedTermsOfOlderIndexesStillMatch() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(IndexDocument(uniqueTerm: "Qold", booleanTerms: ["ZXPBODYtomato"], data: Data("old".utf8)))
        try index.replaceDocument(Scratch.document("new", name: "Salsa", body: "tomatoes"))
        try index.commit()
        #expect(try ids(try SearchIndexReader(path: scratch.path("db")), "tomato") == ["old", "new"])
    }

    @Test func sortsByAValueSlotEitherWay() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        for (id, rank) in [("a", 10.0), ("b", -2.5), ("c", 300.0), ("d", 7.0)] {
            try index.replaceDocument(Scratch.document(id, name: id, body: "everything", rank: rank))
        }
        try index.commit()
        let reader = try SearchIndexReader(path: scratch.path("db"))
        var query = Scratch.query("everything")
        query.sortSlot = 10
        #expect(try ids(reader, query) == ["b", "d", "a", "c"])
        query.sortDescending = true
        #expect(try ids(reader, query) == ["c", "a", "d", "b"])
        query.offset = 1
        query.limit = 2
        #expect(try ids(reader, query) == ["a", "d"])
        #expect(SearchIndex.sortableUnserialise(SearchIndex.sortableSerialise(-2.5)) == -2.5)
    }

    @Test func snippetsMarkTheMatchingWords() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        try index.replaceDocument(Scratch.document("a", name: "Salsa", body: "Chopped tomatoes, onion, cilantro, lime."))
        try index.commit()
        var query = Scratch.query("tomato")
        query.snippetSlot = 2
        let hit = try #require(try SearchIndexReader(path: scratch.path("db")).search(query).hits.first)
        #expect(hit.snippet.contains("[tomatoes]"))
        #expect(hit.snippet.contains("Salsa"))
        query.snippetSlot = nil
        #expect(try SearchIndexReader(path: scratch.path("db")).search(query).hits.first?.snippet == "")
    }

    @Test func documentDataAndValuesComeBack() throws {
        let scratch = try Scratch()
        let index = try SearchIndex(path: scratch.path("db"))
        let binary = Data([0, 1, 2, 255, 0, 10])
        try index.replaceDocument(IndexDocument(uniqueTerm: "Qx", fields: [("", "binary payload")],
                                                values: [0: SearchIndex.sortableSerialise(1234.5), 5: binary], data: binary))
        try index.replaceDocument(IndexDocument(uniqueTerm: "Qy", fields: [("", "no values")]))
        try index.commit()
        let hit = try #require(try SearchIndexReader(path: scratch.path("db")).search(SearchQuery(text: "payload")).hits.first)
        #expect(hit.data == binary)
        let slot0 = Dictionary(uniqueKeysWithValues: try index.uniqueTerms(prefix: "Q", valueSlot: 0).map { ($0.term, $0.value) })
        let stored = try #require(slot0["Qx"] ?? nil)
        #expect(SearchIndex.sortableUnserialise(stored) == 1234.5)
        #expect(slot0.keys.sorted() == ["Qx", "Qy"])
        #expect(slot0["Qy"] == .some(nil))
        let slot5 = try index.uniqueTerms(prefix: "Qx", valueSlot: 5)
        #expect(slot5.first?.value == binary)
    }
}

import Foundation
import PredicateFixtures
import Testing
@testable import LimelightData

/// The table-driven folding of Latin text against the full Unicode path it stands in for, and the
/// SQL function that uses it against in-memory evaluation.
@Suite struct LatinFoldingTests {
    static let flagSets = [1, 2, 3]

    /// Characters a generated text is made of: every table scalar, a few that the table sends to
    /// the full path, combining marks and other scripts.
    static let alphabet: [String] = (0..<LatinFolding.limit).compactMap { Unicode.Scalar($0).map { String(Character($0)) } }
        + ["İ", "ŉ", "\u{301}", "\u{308}", "e\u{301}", "Σ", "ς", "Straße", "ﬁ", "Ǆ", "ǅ", "日本", "Ω", "ÿ", "Ÿ", "😀"]

    static func fullFold(_ text: String, _ flags: Int) -> String {
        StringFolding.foldFully(text, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
    }

    @Test(arguments: flagSets)
    func everyTableScalarFoldsAsTheFullPathDoes(flags: Int) {
        var usable = 0
        for value in 0..<LatinFolding.limit {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(Character(scalar))
            guard let fast = LatinFolding.fold(text, flags: flags) else { continue }
            usable += 1
            #expect(fast == Self.fullFold(text, flags), "U+\(String(value, radix: 16)) with flags \(flags)")
        }
        // The table must cover the letters it exists for, not send them all to the full path.
        #expect(usable > 500)
    }

    @Test func latinTextTakesTheTableAndOtherTextDoesNot() {
        #expect(LatinFolding.fold("Crème Brûlée à la Ÿvette", flags: 3) == "creme brulee a la yvette")
        #expect(LatinFolding.fold("ÉCOLE", flags: 1) == "école")
        #expect(LatinFolding.fold("ÉCOLE", flags: 2) == "ECOLE")
        #expect(LatinFolding.fold("plain ascii 123", flags: 3) == "plain ascii 123")
        #expect(LatinFolding.fold("", flags: 3) == "")
        // A combining mark, Greek and the dotted capital I need the full path.
        #expect(LatinFolding.fold("e\u{301}", flags: 3) == nil)
        #expect(LatinFolding.fold("ΣΟΦΙΑ", flags: 1) == nil)
        #expect(LatinFolding.fold("İstanbul", flags: 1) == nil)
        #expect(LatinFolding.fold("abc", flags: 0) == nil)
    }

    @Test func malformedUTF8GoesToTheFullPath() {
        for bytes: [UInt8] in [[0x61, 0xC3], [0xC0, 0x80], [0xC3, 0x41], [0xFF], [0xE2, 0x82, 0xAC]] {
            let folded = bytes.withUnsafeBufferPointer { LatinFolding.withFolded($0, flags: 3) { Array($0) } }
            #expect(folded == nil, "\(bytes)")
        }
    }

    /// Mixed texts: whatever path `StringFolding.fold` takes, its answer is the full path's.
    @Test(arguments: flagSets)
    func generatedTextsFoldAsTheFullPathDoes(flags: Int) {
        var random = SeededGenerator(seed: 0x5EED_F01D + UInt64(flags))
        var viaTable = 0
        for _ in 0..<3000 {
            let length = Int.random(in: 0...12, using: &random)
            var text = ""
            for _ in 0..<length {
                // Mostly Latin, as stored text is; now and then something the table leaves alone.
                text += random.chance(90) ? Self.alphabet[Int.random(in: 0..<Int(LatinFolding.limit), using: &random)]
                                          : random.pick(Self.alphabet)
            }
            if LatinFolding.fold(text, flags: flags) != nil { viaTable += 1 }
            let expected = Self.fullFold(text, flags)
            #expect(StringFolding.fold(text, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0) == expected,
                    "\(text.unicodeScalars.map { String($0.value, radix: 16) }) with flags \(flags)")
        }
        #expect(viaTable > 100)
    }

    /// `CONTAINS[cd]`, `==[c]` and `BEGINSWITH[d]` in SQL (through `LL_FOLD`) find exactly what
    /// evaluating the same predicates in memory finds, over Latin and non-Latin names.
    @Test func sqlFoldingAgreesWithMemory() throws {
        let folder = try TemporaryFolder()
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Item", properties: [AttributeDescription(name: "name", type: .string)])])
        let context = try TestStack.context(model: model, at: folder.file("fold.sqlite"))
        let names = ["Crème brûlée", "CREME BRULEE", "crème", "Ærø", "Straße", "STRASSE", "İstanbul", "istanbul", "e\u{301}clair",
                     "Éclair", "ΣΟΦΙΑ", "σοφια", "Ÿ", "ÿes", "Œuvre", "oeuvre", "plain", "日本語", "Ǆemal", "ǆemal"]
        for name in names { try context.insertNewObject(forEntityName: "Item").setValue(name, forKey: "name") }
        try context.save()
        let formats = ["name CONTAINS[cd] 'e'", "name CONTAINS[cd] 'É'", "name ==[c] 'crème brûlée'", "name BEGINSWITH[d] 'Ecl'",
                       "name CONTAINS[c] 'SS'", "name CONTAINS[cd] 'ß'", "name ==[cd] 'istanbul'", "name CONTAINS[c] 'σ'",
                       "name BEGINSWITH[cd] 'ǅ'", "name ENDSWITH[cd] 'RO'", "name LIKE[cd] '*UVRE'"]
        let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        for format in formats {
            let predicate = try QueryPredicate(format: format)
            let inSQL = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate)).compactMap { $0.value(forKey: "name") as? String }
            let inMemory = try all.filter { try predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "name") as? String }
            #expect(inSQL.sorted() == inMemory.sorted(), "\(format)")
        }
    }
}

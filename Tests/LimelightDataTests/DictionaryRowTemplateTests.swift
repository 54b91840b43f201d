import Foundation
import Testing
@testable import LimelightData

/// Dictionary fetch rows made from one template: each row its own dictionary, nil values left out.
@Suite struct DictionaryRowTemplateTests {
    @Test func rowsAreIndependentAndLeaveOutNilValues() throws {
        let template = try #require(DictionaryRowTemplate(keys: ["title", "pages", "author", "published"]))
        let full = template.row { column in ["Dune", Int32(412), "Herbert", Date(timeIntervalSinceReferenceDate: 0)][column] }
        let sparse = template.row { column in column == 1 ? Int32(90) : nil }
        let empty = template.row { _ in nil }
        #expect(full.count == 4 && full["title"] as? String == "Dune" && full["pages"] as? Int32 == 412)
        #expect(full["author"] as? String == "Herbert" && full["published"] as? Date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(sparse.count == 1 && sparse["pages"] as? Int32 == 90)
        #expect(empty.isEmpty)
        // A later row does not see an earlier one's values.
        let again = template.row { column in column == 0 ? "Emma" : nil }
        #expect(again.count == 1 && again["title"] as? String == "Emma" && full["title"] as? String == "Dune")
    }

    @Test func aKeyGivenTwiceHasNoTemplate() {
        #expect(DictionaryRowTemplate(keys: ["title", "pages", "title"]) == nil)
    }
}

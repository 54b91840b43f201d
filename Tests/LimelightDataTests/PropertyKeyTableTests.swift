import Foundation
import Testing
@testable import LimelightData

/// Property look-up by name finds a property however its key string was made: the literal
/// itself, the same text built at run time (small or heap-allocated), or a bridged string.
@Suite struct PropertyKeyTableTests {
    static let names = ["v0", "title", "a", "aVeryLongPropertyNameIndeed", "naïveCafé", "", "title"]

    @Test func keysOfEveryMakeFindTheirProperty() {
        let table = PropertyKeyTable(Self.names)
        for (index, name) in Self.names.enumerated() where Self.names.firstIndex(of: name) == index {
            let spellings = [
                name,
                String(name.unicodeScalars.map(Character.init)),
                String(decoding: Array(name.utf8), as: UTF8.self),
                NSString(string: name) as String,
                String(Substring(name + "x").dropLast()),
            ]
            for key in spellings {
                #expect(table.index(of: key) == index, "\(name) as \(key.utf8.count) bytes")
            }
        }
        // A name given twice keeps its first place.
        #expect(table.index(of: "title") == 1)
        for missing in ["v1", "Title", "aVeryLongPropertyNameIndeeD", "naiveCafe", " "] {
            #expect(table.index(of: missing) == nil, "\(missing)")
        }
        #expect(PropertyKeyTable().index(of: "v0") == nil)
    }
}

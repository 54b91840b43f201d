// Predicate format strings as people type them: parsed, printed and read back, evaluated in
// memory, and translated to SQL by a fetch from a real SQLite store.
import Foundation
import FuzzSupport
@testable import LimelightData

final class Fixture: @unchecked Sendable {
    let context: ManagedObjectContext
    let items: [ManagedObject]

    init() throws {
        let folder = FuzzFixtures.scratch("fuzz-predicate")
        let url = folder.appendingPathComponent("store.sqlite")
        try? FileManager.default.removeItem(at: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: FuzzModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        try FuzzModel.populate(context)
        try context.save()
        items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
    }
}

let fixture = try? Fixture()
nonisolated(unsafe) let sample: [String: Any?] = [
    "name": "Crème brûlée", "score": 42, "price": 2.5, "flag": true, "nickname": nil, "tags": ["red", "Blue"],
    "created": Date(timeIntervalSinceReferenceDate: 10), "owner": ["name": "Ann"] as [String: Any],
]
nonisolated(unsafe) let arguments: [Any?] = ["name", 42, [1, 2], "x", 2.5, nil, Date(timeIntervalSinceReferenceDate: 0)]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let fixture else { FuzzSeeds.giveUp("the predicate fuzz store cannot be made") }
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    guard let predicate = try? QueryPredicate(format: text, argumentArray: arguments) else { return 0 }
    _ = try? QueryPredicate(format: predicate.predicateFormat)
    _ = try? predicate.evaluate(with: sample, substitutionVariables: ["x": 1])
    for item in fixture.items { _ = try? predicate.evaluate(with: item, substitutionVariables: ["x": 1]) }
    for entity in ["Item", "Tag"] {
        _ = try? fixture.context.fetch(FetchRequest<ManagedObject>(entityName: entity, predicate: predicate))
    }
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        [
            "name BEGINSWITH[cd] 'cr' AND score > 3", "ANY tags.name ==[c] 'RED'", "SUBQUERY(tags, $t, $t.weight > 2).@count == 1",
            "score BETWEEN {1, 10}", "NOT (flag == YES OR name == nil)", "price * 2 + -score ** 2 >= 0x10", "name MATCHES '[a-z]+\\\\d'",
            "TERNARY(flag == YES, score, 0) IN {1, 2, 3}", "tags.@avg.weight < 1.5e0", "name LIKE '*\\\\**'", "owner.name != %@",
            "%K == %d", "created > CAST(0, 'NSDate')", "#size == $x", "{1, 2}[SIZE] == 2", "'é' IN[d] name", "ALL tags.weight > 0",
            "NONE tags.name == 'a\\u0301'", "sum:(tags.weight) == 0", "uppercase(name) == 'ÉCLAIR'", "FUNCTION(SELF, 'x') == 1",
            "modulus:by:(score, 3) == 0 && !(price < 1)", "tags[FIRST].name =< 'z'", "SELF IN %@", "now() > created",
            "big > 1099511627776 AND small < 3", "amount == 12.15", "identifier != nil AND link CONTAINS 'example'",
            "blob == %@", "ratio >= 0.3", "owner.items.@count > 2", "tags.@max.weight == 3", "created < %@",
            // CAST constants, folded as they are read: every type the printer writes and the forms apps type.
            "created > CAST('2024-03-04 00:00:00 +0000', 'NSDate')", "created < CAST('1e300', 'NSDate')",
            "score == CAST('42', 'NSNumber')", "price < CAST(created, 'NSNumber')", "name == CAST(12.5, 'NSString')",
            "identifier == CAST('E621E1F8-C36C-495A-93FC-0C247A3E6E5F', 'NSUUID')", "blob == CAST('AAECAw==', 'NSData')",
            "link == CAST('https://example.com/1', 'NSURL')", "ratio == CAST('nan', 'NSNumber')", "CAST(score, 'NSString') == '10'",
            "{1, 2} UNION {2, 3} == {1, 2, 3}", "tags.name INTERSECT {'red'} == {'red'}", "tags[LAST].weight MINUS {1} != nil",
        ].map { Data($0.utf8) }
    }
    return 0
}

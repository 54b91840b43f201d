import Foundation
import Testing
@testable import LimelightData

/// Two uniqueness constraints of one entity are checked apart: a value one object holds for one
/// constraint and another object for the other is no conflict, at save and in a batch insert.
@Suite struct SeparateConstraintsTests {
    /// Accounts unique by email, and unique by nickname.
    static func model() -> ManagedObjectModel {
        let account = EntityDescription(name: "Account", properties: [
            AttributeDescription(name: "email", type: .string),
            AttributeDescription(name: "nickname", type: .string),
        ])
        account.uniquenessConstraints = [["email"], ["nickname"]]
        return ManagedObjectModel(entities: [account])
    }

    static func saved(_ url: URL) throws -> [String] {
        let reader = try TestStack.context(model: model(), at: url)
        return try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Account", sortDescriptors: [QuerySortDescriptor(key: "email")]))
                .map { "\($0.value(forKey: "email") as? String ?? "-")/\($0.value(forKey: "nickname") as? String ?? "-")" }
        }
    }

    @Test func aValueSharedAcrossTwoConstraintsIsNoConflict() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("accounts.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        try context.performAndWait {
            for (email, nickname) in [("x", "ada"), ("grace", "x")] {
                let account = try context.insertNewObject(forEntityName: "Account")
                account.setValue(email, forKey: "email")
                account.setValue(nickname, forKey: "nickname")
            }
            try context.save()
        }
        #expect(try Self.saved(url) == ["grace/x", "x/ada"])
        // Against saved objects too: "ada" as an email and "grace" as a nickname are free.
        try context.performAndWait {
            let account = try context.insertNewObject(forEntityName: "Account")
            account.setValue("ada", forKey: "email")
            account.setValue("grace", forKey: "nickname")
            try context.save()
        }
        #expect(try Self.saved(url) == ["ada/grace", "grace/x", "x/ada"])
        // A value held for the same constraint still is one, and nothing is written.
        let refused: Bool = try context.performAndWait {
            let account = try context.insertNewObject(forEntityName: "Account")
            account.setValue("x", forKey: "email")
            do { try context.save(); return false } catch PersistenceError.constraintConflict(_, let properties, _, _) {
                return properties == ["email"]
            }
        }
        #expect(refused)
        #expect(try Self.saved(url).count == 3)
    }

    @Test func aBatchInsertChecksEachConstraintApart() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("accounts.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        context.mergePolicy = .mergeByPropertyObjectTrump
        let request = BatchInsertRequest(entityName: "Account", objects: [
            ["email": "x", "nickname": "ada"],
            ["email": "grace", "nickname": "x"],
        ])
        request.resultType = .objectIDs
        let ids = try context.performAndWait { try context.execute(request).objectIDs ?? [] }
        #expect(ids.count == 2)
        #expect(try Self.saved(url) == ["grace/x", "x/ada"])
    }
}

import Foundation
import Testing
@testable import LimelightData

/// Result types under Core Data's names, and a batch result's `result` holding what its type
/// asked for, as code written for `NSBatchDeleteResult` reads it.
@Suite struct CoreDataResultTypeNamesTests {
    static func filled(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Album", properties: [
                AttributeDescription(name: "rank", type: .integer32, isOptional: false, defaultValue: Int32(0)),
            ]),
        ])
        let context = try TestStack.context(model: model, at: folder.file("albums.sqlite"))
        for rank in 0..<6 { try context.insertNewObject(forEntityName: "Album").setValue(Int32(rank), forKey: "rank") }
        try context.save()
        return context
    }

    @Test func fetchResultTypes() throws {
        let folder = try TemporaryFolder()
        let context = try Self.filled(folder)
        let counting = FetchRequest<NSNumber>(entityName: "Album")
        counting.resultType = .countResultType
        counting.predicate = try QueryPredicate(format: "rank >= %i", Int32(2))
        #expect(try context.fetch(counting).first?.int64Value == 4)
        let ids = FetchRequest<FetchRequestResult>(entityName: "Album")
        ids.resultType = .managedObjectIDResultType
        #expect(try context.fetch(ids).allSatisfy { $0 is ManagedObjectID })
        #expect(FetchRequestResultType.dictionaryResultType == .dictionary)
        #expect(FetchRequestResultType.managedObjectResultType == .managedObject)
    }

    @Test func batchDeleteResultHoldsWhatItsTypeAsked() throws {
        let folder = try TemporaryFolder()
        let context = try Self.filled(folder)
        let byIDs = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Album", predicate: try QueryPredicate(format: "rank < 2")))
        byIDs.resultType = .resultTypeObjectIDs
        let deleted = try context.execute(byIDs).result as? [ManagedObjectID]
        #expect(deleted?.count == 2)
        let counted = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Album", predicate: try QueryPredicate(format: "rank < 4")))
        counted.resultType = .resultTypeCount
        #expect(try context.execute(counted).result as? Int == 2)
        let plain = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Album"))
        plain.resultType = .resultTypeStatusOnly
        #expect(try context.execute(plain).result as? Bool == true)
    }

    @Test func batchUpdateResultHoldsWhatItsTypeAsked() throws {
        let folder = try TemporaryFolder()
        let context = try Self.filled(folder)
        let request = BatchUpdateRequest(entityName: "Album")
        request.propertiesToUpdate = ["rank": 9]
        request.predicate = try QueryPredicate(format: "rank > 3")
        request.resultType = .updatedObjectIDsResultType
        let result: BatchUpdateResult = try context.execute(request)
        #expect((result.result as? [ManagedObjectID])?.count == 2)
        request.resultType = .updatedObjectsCountResultType
        #expect(try context.execute(request).result as? Int == 2)
        request.resultType = .statusOnlyResultType
        #expect(try context.execute(request).result as? Bool == true)
    }
}

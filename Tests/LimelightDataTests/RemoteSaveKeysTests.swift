import Foundation
import Testing
@testable import LimelightData

/// `mergeChanges(fromRemoteContextSave:into:)` takes its keys as Core Data's string constants
/// spell them or as `NotificationKey`s, as code ported from `[NSDeletedObjectsKey: ids]` writes
/// them; a key of either form merges the same.
@Suite struct RemoteSaveKeysTests {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Item", properties: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "unread", type: .boolean, isOptional: false, defaultValue: true),
            ]),
        ])
    }

    static func titles(_ context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [QuerySortDescriptor(key: "title")]))
            .compactMap { $0.value(forKey: "title") as? String }
    }

    @Test(arguments: [true, false]) func batchDeleteMergedUnderEitherKey(byEnum: Bool) throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("items.sqlite"))
        for title in ["a", "b", "c"] { try context.insertNewObject(forEntityName: "Item").setValue(title, forKey: "title") }
        try context.save()
        #expect(try Self.titles(context) == ["a", "b", "c"])
        let request = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Item", predicate: try QueryPredicate(format: "title != 'b'")))
        request.resultType = .objectIDs
        let deleted = try context.execute(request).objectIDs ?? []
        #expect(deleted.count == 2)
        let changes: [AnyHashable: Any] = byEnum
            ? [ManagedObjectContext.NotificationKey.deletedObjects: deleted]
            : [ManagedObjectContext.NotificationKey.deletedObjects.rawValue: deleted]
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [context])
        #expect(context.registeredObjects.filter { !$0.isDeleted }.count == 1)
        #expect(try Self.titles(context) == ["b"])
    }

    @Test func batchUpdateMergedUnderTheIDKey() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("items.sqlite"))
        let item = try context.insertNewObject(forEntityName: "Item")
        item.setValue("a", forKey: "title")
        try context.save()
        let request = BatchUpdateRequest(entityName: "Item")
        request.propertiesToUpdate = ["unread": NSNumber(value: false)]
        request.resultType = .updatedObjectIDs
        let updated = try context.execute(request).objectIDs ?? []
        #expect(item.value(forKey: "unread") as? Bool == true)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: [ManagedObjectContext.NotificationKey.updatedObjectIDs: updated], into: [context])
        #expect(item.value(forKey: "unread") as? Bool == false)
    }
}

import Foundation
import Testing
@testable import LimelightData

/// `sortDescriptors` is optional, as Core Data's: `nil` by default, an empty array when set to
/// one, and either way the store's order; set, the results follow it.
struct FetchSortDescriptorsTests {
    static func context(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let context = try PhotoModel.stack(at: folder.file("people.sqlite"))
        try context.performAndWait {
            for name in ["Grace", "Ada", "Hedy"] {
                try context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "firstName")
            }
            try context.save()
        }
        return context
    }

    static func names(_ request: FetchRequest<ManagedObject>, in context: ManagedObjectContext) throws -> [String] {
        try context.performAndWait { try context.fetch(request).compactMap { $0.value(forKey: "firstName") as? String } }
    }

    @Test func nilByDefaultAndTheStoresOrder() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        #expect(request.sortDescriptors == nil)
        #expect(Set(try Self.names(request, in: context)) == ["Ada", "Grace", "Hedy"])
        // Appending through the optional, as ported code does, leaves a nil list nil.
        request.sortDescriptors?.append(QuerySortDescriptor(key: "firstName"))
        #expect(request.sortDescriptors == nil)
        #expect(FetchRequest<ManagedObject>(entityName: "Person", predicate: nil).sortDescriptors == nil)
    }

    @Test func anEmptyListReadsBackEmptyAndFetchesAsNil() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        let request = FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [])
        #expect(request.sortDescriptors == [])
        #expect(request.copy().sortDescriptors == [])
        let unsorted = FetchRequest<ManagedObject>(entityName: "Person")
        #expect(try Self.names(request, in: context) == Self.names(unsorted, in: context))
        request.sortDescriptors?.append(QuerySortDescriptor(key: "firstName", ascending: false))
        #expect(try Self.names(request, in: context) == ["Hedy", "Grace", "Ada"])
        request.sortDescriptors = nil
        #expect(request.sortDescriptors == nil)
    }

    @Test func setDescriptorsOrderTheResults() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        let request = FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [QuerySortDescriptor(key: "firstName")])
        #expect(request.sortDescriptors?.map(\.key) == ["firstName"])
        #expect(try Self.names(request, in: context) == ["Ada", "Grace", "Hedy"])
        let copy = request.copy()
        request.sortDescriptors = [QuerySortDescriptor(key: "firstName", ascending: false)]
        #expect(try Self.names(request, in: context) == ["Hedy", "Grace", "Ada"])
        #expect(try Self.names(copy, in: context) == ["Ada", "Grace", "Hedy"])
    }
}

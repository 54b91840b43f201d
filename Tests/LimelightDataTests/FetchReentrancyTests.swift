import Foundation
import Testing
@testable import LimelightData

/// An object that fetches the very request it was fetched by as it awakes.
final class EchoingObject: ManagedObject {
    var echoed: Int?

    override func awakeFromFetch() {
        echoed = (try? managedObjectContext?.fetch(Self.request))?.count
    }

    /// The request the test fetches by, so both fetches run the same SQL statement.
    static var request: FetchRequest<ManagedObject> {
        FetchRequest<ManagedObject>(entityName: "Echo", sortDescriptors: [QuerySortDescriptor(key: "number")])
    }
}

/// Fetches turn rows into objects while the store reads them: code that runs for each object
/// (`awakeFromFetch`) may fetch again, even with the same statement, without disturbing the outer
/// fetch.
@Suite struct FetchReentrancyTests {
    @Test func awakeFromFetchMayRunTheSameFetchAgain() throws {
        ManagedObjectClassRegistry.shared.register(EchoingObject.self, forEntityName: "Echo")
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Echo", properties: [AttributeDescription(name: "number", type: .integer64)])])
        let folder = try TemporaryFolder()
        let url = folder.file("echo.sqlite")
        do {
            let context = try TestStack.context(model: model, at: url)
            for number in 0..<7 { try context.insertNewObject(forEntityName: "Echo").setValue(Int64(number), forKey: "number") }
            try context.save()
        }
        let context = try TestStack.context(model: model, at: url)
        let request = EchoingObject.request
        request.returnsObjectsAsFaults = false
        let objects = try context.fetch(request)
        #expect(objects.compactMap { $0.value(forKey: "number") as? Int64 } == Array(0..<7))
        #expect(objects.allSatisfy { ($0 as? EchoingObject)?.echoed == 7 })
    }
}

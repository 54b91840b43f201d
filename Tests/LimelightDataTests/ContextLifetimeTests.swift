import Foundation
import Testing
@testable import LimelightData

/// Objects do not keep their context alive, and read `nil` as their context once it is gone.
@Suite struct ContextLifetimeTests {
    @Test func objectsOutlivingTheirContextSeeNone() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("lifetime.sqlite")
        weak var goneContext: ManagedObjectContext?
        var survivors: [ManagedObject] = []
        do {
            let context = try PhotoModel.stack(at: url)
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue("Kept", forKey: "name")
            try context.save()
            let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo"))
            #expect(fetched.first?.managedObjectContext === context)
            survivors = fetched + [photo]
            goneContext = context
        }
        #expect(goneContext == nil)
        #expect(!survivors.isEmpty)
        #expect(survivors.allSatisfy { $0.managedObjectContext == nil })
        // Values already loaded stay readable; the object just has no context to load more from.
        #expect(survivors.first?.value(forKey: "name") as? String == "Kept")
    }
}

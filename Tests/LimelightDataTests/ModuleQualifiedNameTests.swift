import Foundation
import Testing
@testable import LimelightData

/// An app's own types named like the framework's, as Core Data apps have them: a validation
/// error enum, and a `FetchRequest` struct holding its requests inside a helper.
enum ShelfValidationScope {
    enum ValidationError: Error { case emptyShelf }

    struct FetchRequest {
        /// Names the framework's request past the struct's own name, by the module's name.
        static var everyPhoto: LimelightData.FetchRequest<ManagedObject> {
            LimelightData.FetchRequest<ManagedObject>(entityName: "Photo")
        }
    }

    static func frameworkError(_ error: any Error) -> LimelightData.ValidationError? {
        error as? LimelightData.ValidationError
    }
}

@Suite struct ModuleQualifiedNameTests {
    @Test func theModulesTypesCanBeNamedPastAnAppsOwn() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let photo = try context.insertNewObject(forEntityName: "Photo")
        photo.setValue(Int16(9), forKey: "rating")
        do {
            try context.save()
            Issue.record("a rating above the maximum was saved")
        } catch {
            #expect(ShelfValidationScope.frameworkError(error)?.failures.first?.key == "rating")
        }
        photo.setValue(Int16(4), forKey: "rating")
        try context.save()
        #expect(try context.fetch(ShelfValidationScope.FetchRequest.everyPhoto).count == 1)
    }
}

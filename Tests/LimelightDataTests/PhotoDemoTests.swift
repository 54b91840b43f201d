import Foundation
import Testing
@testable import LimelightData

/// The 2006 demo as a test: defaults, validation, undo past a save, save and reopen.
@Suite struct PhotoDemoTests {
    init() {
        ManagedObjectClassRegistry.shared.register(Photo.self)
        ManagedObjectClassRegistry.shared.register(Person.self, forEntityName: "Person")
    }

    @Test func newPhotoShowsDefaults() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let photo = try #require(try context.insertNewObject(forEntityName: "Photo") as? Photo)
        #expect(photo.name == "Untitled")
        #expect(photo.rating == 2)
        #expect(photo.isInserted)
        #expect(photo.objectID.isTemporaryID)
    }

    @Test func ratingSevenFailsValidationAndChangesNothing() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("photos.sqlite")
        let context = try PhotoModel.stack(at: url)
        let photo = try #require(try context.insertNewObject(forEntityName: "Photo") as? Photo)
        photo.rating = 7
        let other = try context.insertNewObject(forEntityName: "Photo")
        other.setValue(nil, forKey: "name")
        #expect(throws: ValidationError.self) { try context.save() }
        do {
            try context.save()
        } catch let error as ValidationError {
            #expect(error.failures.count == 2)
            #expect(error.failures.contains { $0.key == "rating" && $0.reason.contains("maximum 5") })
            #expect(error.failures.contains { $0.key == "name" && $0.reason.contains("required") })
        }
        #expect(context.insertedObjects.count == 2)
        #expect(photo.objectID.isTemporaryID)
        let reopened = try PhotoModel.stack(at: url)
        #expect(try reopened.count(for: FetchRequest<ManagedObject>(entityName: "Photo")) == 0)
    }

    @Test func undoPastASaveRestoresTheOldRating() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let photo = try #require(try context.insertNewObject(forEntityName: "Photo") as? Photo)
        photo.rating = 3
        try context.save()
        photo.rating = 5
        try context.save()
        context.undo()
        #expect(photo.rating == 3)
        #expect(photo.isUpdated)
        try context.save()
        context.redo()
        #expect(photo.rating == 5)
    }

    @Test func saveReopenEverythingIsThere() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("photos.sqlite")
        do {
            let context = try PhotoModel.stack(at: url)
            let person = try #require(try context.insertNewObject(forEntityName: "Person") as? Person)
            person.firstName = "Ansel"
            person.lastName = "Adams"
            for (index, title) in ["Moonrise", "Half Dome", "Aspens"].enumerated() {
                let photo = try #require(try context.insertNewObject(forEntityName: "Photo") as? Photo)
                photo.name = title
                photo.rating = Int16(index + 3)
                photo.data = Data([UInt8(index), 1, 2])
                photo.photographer = person
            }
            #expect(person.photos.count == 3)
            try context.save()
            #expect(!person.objectID.isTemporaryID)
        }
        let context = try PhotoModel.stack(at: url)
        let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"), as: Person.self)
        let person = try #require(people.first)
        #expect(person.isFault)
        #expect(person.firstName == "Ansel")
        let photos = person.photos.sorted { ($0.name ?? "") < ($1.name ?? "") }
        #expect(photos.map(\.name) == ["Aspens", "Half Dome", "Moonrise"])
        #expect(photos.map(\.rating) == [5, 4, 3])
        #expect(photos.first?.photographer === person)
        #expect(photos.first?.data == Data([2, 1, 2]))
    }
}

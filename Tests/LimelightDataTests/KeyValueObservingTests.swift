import Foundation
import Testing
@testable import LimelightData

/// What an observation's handler was told, in order.
final class Heard<Value> {
    var changes: [KeyValueObservedChange<Value>] = []
    /// The new values of the calls after changes (not the prior ones), unwrapped once.
    var newValues: [Value?] { changes.filter { !$0.isPrior }.map(\.newValue) }
}

/// A string-keyed observation's value as a string: it comes as `Any?`, itself optional when
/// the options did not ask for it.
func observedString(_ value: Any??) -> String? { (value ?? nil) as? String }

extension Photo {
    /// Not modeled: observed, it is reported on every change of the photo's values.
    var caption: String { "\(name ?? "") (\(rating))" }
}

/// Key-value observing of managed objects as Core Data apps use it: typed and string key paths,
/// options, every way a value changes, and the end of an observation.
@Suite struct KeyValueObservingTests {
    init() {
        ManagedObjectClassRegistry.shared.register(Photo.self)
        ManagedObjectClassRegistry.shared.register(Person.self, forEntityName: "Person")
    }

    /// A context on a new SQLite store, with a saved photo named "Harbour" by Ada. Keep the
    /// context: objects whose context is gone have no one to report their changes.
    static func savedPhoto(_ folder: TemporaryFolder) throws -> (ManagedObjectContext, Photo, Person) {
        let context = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let photo = try #require(try context.insertNewObject(forEntityName: "Photo") as? Photo)
        let ada = try #require(try context.insertNewObject(forEntityName: "Person") as? Person)
        photo.name = "Harbour"
        ada.firstName = "Ada"
        photo.photographer = ada
        try context.save()
        return (context, photo, ada)
    }

    @Test func setsByKeyAndTypedSetsAreReportedWithOldAndNewValues() throws {
        let folder = try TemporaryFolder()
        let (context, photo, _) = try Self.savedPhoto(folder)
        let heard = Heard<String?>()
        let token = photo.observe(\.name, options: [.old, .new]) { observed, change in
            #expect(observed === photo)
            heard.changes.append(change)
        }
        photo.setValue("Bridge", forKey: "name")
        photo.name = "Mountain"
        // The same value again is no change.
        photo.name = "Mountain"
        photo.name = nil
        #expect(heard.changes.map(\.kind) == [.setting, .setting, .setting])
        #expect(heard.changes.map(\.oldValue) == [.some("Harbour"), .some("Bridge"), .some("Mountain")])
        #expect(heard.changes.map(\.newValue) == [.some("Bridge"), .some("Mountain"), .some(nil)])
        #expect(heard.changes.allSatisfy { !$0.isPrior && $0.indexes == nil })
        token.invalidate()
        withExtendedLifetime(context) {}
    }

    @Test func optionsChooseWhatIsReportedAndWhen() throws {
        let folder = try TemporaryFolder()
        let (context, photo, _) = try Self.savedPhoto(folder)
        // No options: told that it changed, without values.
        let bare = Heard<Int16>()
        let bareToken = photo.observe(\.rating) { _, change in bare.changes.append(change) }
        // `.initial` calls at once; `.prior` before each change, while the photo still holds the old value.
        let full = Heard<Int16>()
        var ratingDuringPrior: Int16?
        let fullToken = photo.observe(\.rating, options: [.initial, .new, .old, .prior]) { photo, change in
            if change.isPrior { ratingDuringPrior = photo.rating }
            full.changes.append(change)
        }
        #expect(full.changes.count == 1)
        #expect(full.changes.first?.newValue == 2 && full.changes.first?.oldValue == nil)
        photo.rating = 4
        #expect(bare.changes.count == 1)
        #expect(bare.changes.first.map { $0.newValue == nil && $0.oldValue == nil && !$0.isPrior } == true)
        try #require(full.changes.count == 3)
        #expect(full.changes[1].isPrior && full.changes[1].oldValue == 2 && full.changes[1].newValue == nil)
        #expect(ratingDuringPrior == 2)
        #expect(!full.changes[2].isPrior && full.changes[2].oldValue == 2 && full.changes[2].newValue == 4)
        withExtendedLifetime((context, bareToken, fullToken)) {}
    }

    @Test func anObservationEndsWithInvalidateOrWithItsToken() throws {
        let folder = try TemporaryFolder()
        let (context, photo, _) = try Self.savedPhoto(folder)
        let ended = Heard<String?>(), released = Heard<String?>()
        let token = photo.observe(\.name, options: .new) { _, change in ended.changes.append(change) }
        var releasedToken: KeyValueObservation? = photo.observe(\.name, options: .new) { _, change in released.changes.append(change) }
        photo.name = "Bridge"
        token.invalidate()
        token.invalidate()
        releasedToken = nil
        photo.name = "Mountain"
        #expect(ended.newValues == ["Bridge"])
        #expect(released.newValues == ["Bridge"])
        #expect(releasedToken == nil)
        // Nobody observes the photo any more: its changes cost the check of a nil table again.
        #expect(photo.keyValueObservers == nil)
        withExtendedLifetime(context) {}
    }

    @Test func aNewObjectWithoutUndoIsReportedToo() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        // Without an undo manager, a new object's values are stored without being compared
        // (nobody hears of them before its insertion does), unless someone observes them.
        context.undoManager = nil
        let photo = try #require(try context.insertNewObject(forEntityName: "Photo") as? Photo)
        let heard = Heard<String?>()
        let token = photo.observe(\.name, options: [.old, .new]) { _, change in heard.changes.append(change) }
        photo.name = "Harbour"
        photo.setValue("Bridge", forKey: "name")
        #expect(heard.newValues == ["Harbour", "Bridge"])
        #expect(heard.changes.first?.oldValue == .some("Untitled"))
        withExtendedLifetime((context, token)) {}
    }

    @Test func aFetchThatRefreshesRefetchedObjectsReportsWhatItChanged() throws {
        let folder = try TemporaryFolder()
        let (context, photo, _) = try Self.savedPhoto(folder)
        let heard = Heard<String?>()
        let token = photo.observe(\.name, options: .new) { _, change in heard.changes.append(change) }
        // Another coordinator writes the store behind the context's back.
        let other = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let request = FetchRequest<ManagedObject>(entityName: "Photo")
        try #require(try other.fetch(request).first).setValue("Bridge", forKey: "name")
        try other.save()
        _ = try context.fetch(request)
        #expect(heard.changes.isEmpty)
        request.shouldRefreshRefetchedObjects = true
        _ = try context.fetch(request)
        #expect(heard.newValues == ["Bridge"])
        withExtendedLifetime(token) {}
    }

    @Test func aFaultFiringIsNoChange() throws {
        let folder = try TemporaryFolder()
        let (saving, saved, _) = try Self.savedPhoto(folder)
        // Another context on the same store, where the photo is a fault.
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = saving.persistentStoreCoordinator
        let photo = try #require(context.object(with: saved.objectID) as? Photo)
        #expect(photo.isFault)
        let heard = Heard<String?>()
        let token = photo.observe(\.name, options: .new) { _, change in heard.changes.append(change) }
        #expect(photo.isFault)
        #expect(photo.name == "Harbour")
        #expect(!photo.isFault)
        #expect(heard.changes.isEmpty)
        photo.name = "Bridge"
        #expect(heard.newValues == ["Bridge"])
        withExtendedLifetime(token) {}
    }

    @Test func primitiveValuesBetweenWillAndDidChangeAreReported() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: CustomAccessorTests.model(), at: folder.file("notes.sqlite"))
        let note = try #require(try context.insertNewObject(forEntityName: "AccessorNote") as? AccessorNote)
        note.title = "Draft"
        try context.save()
        let heard = Heard<Any?>()
        let token = try note.observe(forKeyPath: "title", options: [.old, .new, .prior]) { _, change in heard.changes.append(change) }
        note.title = "Final"
        // Without the pair the value alone changes, as in Core Data: nobody hears of it.
        note.setPrimitiveValue("Quiet", forKey: "title")
        #expect(heard.changes.count == 2)
        #expect(heard.changes[0].isPrior && observedString(heard.changes[0].oldValue) == "Draft")
        #expect(observedString(heard.changes[1].newValue) == "Final" && observedString(heard.changes[1].oldValue) == "Draft")
        withExtendedLifetime(token) {}
    }

    @Test func relationshipsAreReportedOnBothSides() throws {
        let folder = try TemporaryFolder()
        let (context, photo, ada) = try Self.savedPhoto(folder)
        let grace = try #require(try context.insertNewObject(forEntityName: "Person") as? Person)
        let photographer = Heard<Person?>(), adasPhotos = Heard<Set<Photo>>(), gracesPhotos = Heard<Set<Photo>>()
        let tokens = [
            photo.observe(\.photographer, options: [.old, .new]) { _, change in photographer.changes.append(change) },
            ada.observe(\.photos, options: [.old, .new]) { _, change in adasPhotos.changes.append(change) },
            grace.observe(\.photos, options: [.old, .new]) { _, change in gracesPhotos.changes.append(change) },
        ]
        // One side set: the other follows, and its observers hear it as an insertion and a removal.
        photo.photographer = grace
        #expect(photographer.changes.map(\.kind) == [.setting])
        #expect(photographer.changes.first?.oldValue == .some(ada) && photographer.changes.first?.newValue == .some(grace))
        #expect(adasPhotos.changes.map(\.kind) == [.removal])
        #expect(adasPhotos.changes.first?.oldValue == [photo] && adasPhotos.changes.first?.newValue == nil)
        #expect(gracesPhotos.changes.map(\.kind) == [.insertion])
        #expect(gracesPhotos.changes.first?.newValue == [photo] && gracesPhotos.changes.first?.oldValue == nil)

        // A to-many mutated: an insertion on it, a setting on the other side.
        let second = try #require(try context.insertNewObject(forEntityName: "Photo") as? Photo)
        ada.mutableSetValue(forKey: "photos").insert(second)
        #expect(adasPhotos.changes.last?.kind == .insertion && adasPhotos.changes.last?.newValue == [second])
        ada.mutableSetValue(forKey: "photos").remove(second)
        #expect(adasPhotos.changes.last?.kind == .removal && adasPhotos.changes.last?.oldValue == [second])
        // Set whole, gaining some and losing others: a setting with both sets.
        grace.photos = [second]
        #expect(gracesPhotos.changes.last?.kind == .setting)
        #expect(gracesPhotos.changes.last?.oldValue == [photo] && gracesPhotos.changes.last?.newValue == [second])
        #expect(photographer.changes.last?.newValue == .some(nil))
        withExtendedLifetime(tokens) {}
    }

    @Test func anOrderedToManyReportsPositions() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: OrderedRelationshipTests.model(), at: folder.file("albums.sqlite"))
        let album = try context.insertNewObject(forEntityName: "Album")
        let photos = try (0..<3).map { _ in try context.insertNewObject(forEntityName: "Photo") }
        album.setValue(Array(photos.prefix(2)), forKey: "photos")
        try context.save()
        let heard = Heard<Any?>()
        let token = try album.observe(forKeyPath: "photos", options: [.old, .new]) { _, change in heard.changes.append(change) }
        album.mutableOrderedSetValue(forKey: "photos").insert(photos[2], at: 0)
        album.mutableOrderedSetValue(forKey: "photos").remove(photos[1])
        #expect(heard.changes.map(\.kind) == [.insertion, .removal])
        #expect(heard.changes[0].indexes == IndexSet([0]))
        #expect((heard.changes[0].newValue ?? nil) as? [ManagedObject] == [photos[2]])
        #expect(heard.changes[1].indexes == IndexSet([2]))
        #expect((heard.changes[1].oldValue ?? nil) as? [ManagedObject] == [photos[1]])
        withExtendedLifetime(token) {}
    }

    @Test func deletionReportsTheRelationshipsItNullifies() throws {
        let folder = try TemporaryFolder()
        let (context, photo, ada) = try Self.savedPhoto(folder)
        let heard = Heard<Person?>()
        let token = photo.observe(\.photographer, options: [.old, .new]) { _, change in heard.changes.append(change) }
        context.delete(ada)
        #expect(heard.changes.count == 1)
        #expect(heard.changes.first?.oldValue == .some(ada) && heard.changes.first?.newValue == .some(nil))
        withExtendedLifetime(token) {}
    }

    @Test func undoRedoAndRollbackAreReported() throws {
        let folder = try TemporaryFolder()
        let (context, photo, _) = try Self.savedPhoto(folder)
        let heard = Heard<String?>()
        let token = photo.observe(\.name, options: [.old, .new]) { _, change in heard.changes.append(change) }
        photo.name = "Bridge"
        context.processPendingChanges()
        context.undo()
        #expect(photo.name == "Harbour")
        context.redo()
        #expect(photo.name == "Bridge")
        context.rollback()
        #expect(photo.name == "Harbour")
        #expect(heard.newValues == ["Bridge", "Harbour", "Bridge", "Harbour"])
        #expect(heard.changes.map(\.oldValue) == [.some("Harbour"), .some("Bridge"), .some("Harbour"), .some("Bridge")])
        withExtendedLifetime(token) {}
    }

    @Test func dottedKeyPathsFollowTheObjectTheRelationshipHolds() throws {
        let folder = try TemporaryFolder()
        let (context, photo, ada) = try Self.savedPhoto(folder)
        let grace = try #require(try context.insertNewObject(forEntityName: "Person") as? Person)
        grace.firstName = "Grace"
        let typed = Heard<String?>(), byName = Heard<Any?>()
        let tokens = try [
            photo.observe(\.photographer?.firstName, options: [.old, .new]) { _, change in typed.changes.append(change) },
            photo.observe(forKeyPath: "photographer.firstName", options: [.old, .new]) { _, change in byName.changes.append(change) },
        ]
        ada.firstName = "Augusta"
        photo.photographer = grace
        // Ada is no longer on the path; Grace is.
        ada.firstName = "Ada"
        grace.firstName = "Hopper"
        photo.photographer = nil
        grace.firstName = "Grace"
        #expect(typed.newValues == [.some("Augusta"), .some("Grace"), .some("Hopper"), .some(nil)])
        #expect(typed.changes.map(\.oldValue) == [.some("Ada"), .some("Augusta"), .some("Grace"), .some("Hopper")])
        #expect(byName.newValues.map(observedString) == ["Augusta", "Grace", "Hopper", nil])
        withExtendedLifetime(tokens) {}
    }

    @Test func aKeyPathThatNamesNoPropertyIsReportedOnEveryChange() throws {
        let folder = try TemporaryFolder()
        let (context, photo, _) = try Self.savedPhoto(folder)
        let heard = Heard<String>()
        let token = photo.observe(\.caption, options: [.old, .new]) { _, change in heard.changes.append(change) }
        photo.rating = 5
        photo.name = "Bridge"
        #expect(heard.newValues == ["Harbour (5)", "Bridge (5)"])
        #expect(heard.changes.map(\.oldValue) == ["Harbour (2)", "Harbour (5)"])
        withExtendedLifetime((context, token)) {}
    }

    @Test func keyPathsTheEntityDoesNotHaveAreRefusedByName() throws {
        let folder = try TemporaryFolder()
        let (_, photo, ada) = try Self.savedPhoto(folder)
        #expect {
            try photo.observe(forKeyPath: "title") { _, _ in }
        } throws: { error in
            (error as? ValidationFailure)?.reason.contains("no property 'title'") == true
        }
        #expect {
            try ada.observe(forKeyPath: "photos.name") { _, _ in }
        } throws: { error in
            (error as? ValidationFailure)?.reason.contains("neither a to-one relationship") == true
        }
    }
}

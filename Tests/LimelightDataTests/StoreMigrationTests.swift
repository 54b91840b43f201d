import Foundation
import Testing
@testable import LimelightData

/// `migratePersistentStore(_:to:options:type:)` and `assign(_:to:)`, on real SQLite files and the
/// in-memory store.
struct StoreMigrationTests {
    /// Playlists with an ordered to-many of tracks, tracks with an artist (to-one), and tags shared
    /// by many tracks (many-to-many); a track's title is required.
    static func model() -> ManagedObjectModel {
        let tracks = RelationshipDescription(name: "tracks", destination: "Track", inverse: "playlist", toMany: true)
        tracks.isOrdered = true
        let playing = AttributeDescription(name: "playing", type: .boolean)
        playing.isTransient = true
        let playlist = EntityDescription(name: "Playlist", properties: [AttributeDescription(name: "name", type: .string), tracks])
        let track = EntityDescription(name: "Track", properties: [
            AttributeDescription(name: "title", type: .string, isOptional: false),
            AttributeDescription(name: "seconds", type: .integer32),
            playing,
            RelationshipDescription(name: "playlist", destination: "Playlist", inverse: "tracks"),
            RelationshipDescription(name: "artist", destination: "Artist", inverse: "tracks"),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "tracks", toMany: true),
        ])
        let artist = EntityDescription(name: "Artist", properties: [AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "tracks", destination: "Track", inverse: "artist", toMany: true)])
        let tag = EntityDescription(name: "Tag", properties: [AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "tracks", destination: "Track", inverse: "tags", toMany: true)])
        return ManagedObjectModel(entities: [playlist, track, artist, tag])
    }

    /// A playlist of five tracks in a deliberate order, two artists, two shared tags.
    func fill(_ context: ManagedObjectContext) throws {
        let playlist = try context.insertNewObject(forEntityName: "Playlist")
        playlist.setValue("Evening", forKey: "name")
        let artists = try ["Nina", "Miles"].map { name -> ManagedObject in
            let artist = try context.insertNewObject(forEntityName: "Artist")
            artist.setValue(name, forKey: "name")
            return artist
        }
        let tags = try ["jazz", "live"].map { name -> ManagedObject in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(name, forKey: "name")
            return tag
        }
        var ordered: [ManagedObject] = []
        for (number, title) in ["E", "C", "A", "D", "B"].enumerated() {
            let track = try context.insertNewObject(forEntityName: "Track")
            track.setValue(title, forKey: "title")
            track.setValue(Int32(100 + number), forKey: "seconds")
            track.setValue(artists[number % 2], forKey: "artist")
            track.setValue(Set(number == 0 ? tags : [tags[number % 2]]), forKey: "tags")
            ordered.append(track)
        }
        playlist.setValue(ordered, forKey: "tracks")
        try context.save()
    }

    /// What a context holds, independent of IDs: the playlist's track order, each track's artist
    /// and tags.
    func summary(_ context: ManagedObjectContext) throws -> [String] {
        let playlists = try context.fetch(FetchRequest<ManagedObject>(entityName: "Playlist"))
        var lines: [String] = []
        for playlist in playlists {
            let tracks = playlist.value(forKey: "tracks") as? [ManagedObject] ?? []
            for track in tracks {
                let artist = (track.value(forKey: "artist") as? ManagedObject)?.value(forKey: "name") as? String ?? "-"
                let tags = ((track.value(forKey: "tags") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
                lines.append("\(playlist.value(forKey: "name") ?? "") \(track.value(forKey: "title") ?? "") \(track.value(forKey: "seconds") ?? 0) \(artist) \(tags)")
            }
        }
        lines.append("tags: \(try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag"))), artists: \(try context.count(for: FetchRequest<ManagedObject>(entityName: "Artist")))")
        return lines
    }

    func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func saveAsCopiesEverythingAndLeavesTheOldFile() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        let old = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("old.sqlite"))
        try fill(context(coordinator))
        let before = try summary(context(coordinator))
        #expect(before.first == "Evening E 100 Nina [\"jazz\", \"live\"]")

        let moved = try coordinator.migratePersistentStore(old, to: folder.file("moved.sqlite"), type: .sqlite)
        #expect(coordinator.persistentStores.count == 1 && coordinator.persistentStores.first === moved)
        #expect(moved.identifier != old.identifier)
        #expect(try summary(context(coordinator)) == before)
        // The copy is a store of its own on disk; the old file is untouched.
        for file in ["moved.sqlite", "old.sqlite"] {
            let reopened = try PersistentStoreCoordinator(managedObjectModel: Self.model())
            try reopened.addPersistentStore(type: .sqlite, at: folder.file(file))
            #expect(try summary(context(reopened)) == before)
        }
    }

    @Test func anInMemoryStoreBecomesAFile() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        let memory = try coordinator.addPersistentStore(type: .inMemory)
        try fill(context(coordinator))
        let before = try summary(context(coordinator))
        try coordinator.migratePersistentStore(memory, to: folder.file("saved.sqlite"), type: .sqlite)
        let reopened = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try reopened.addPersistentStore(type: .sqlite, at: folder.file("saved.sqlite"))
        let after = try summary(context(reopened))
        #expect(after == before, "\(after) against \(before)")
    }

    @Test func aFailedCopyLeavesTheCoordinatorAsItWas() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        let old = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("old.sqlite"))
        try fill(context(coordinator))
        // A file in the way.
        try Data("keep me".utf8).write(to: folder.file("taken.sqlite"))
        let taken = try #require(throws: PersistenceError.self) {
            try coordinator.migratePersistentStore(old, to: folder.file("taken.sqlite"), type: .sqlite)
        }
        #expect("\(taken)".contains("taken.sqlite"))
        #expect(try Data(contentsOf: folder.file("taken.sqlite")) == Data("keep me".utf8))
        // A row another program wrote without its required title: the copy cannot be saved.
        let db = try SQLiteConnection(path: folder.file("old.sqlite").path, readOnly: false)
        try db.execute("UPDATE ZTRACK SET ZTITLE = NULL WHERE ZTITLE = 'C'")
        db.close()
        #expect(throws: ValidationError.self) {
            try coordinator.migratePersistentStore(old, to: folder.file("copy.sqlite"), type: .sqlite)
        }
        #expect(coordinator.persistentStores.count == 1 && coordinator.persistentStores.first === old)
        #expect(!FileManager.default.fileExists(atPath: folder.file("copy.sqlite").path))
        #expect(try context(coordinator).count(for: FetchRequest<ManagedObject>(entityName: "Track")) == 5)
    }

    @Test func newObjectsGoToTheStoreTheyAreAssignedTo() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        let first = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("first.sqlite"))
        let second = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("second.sqlite"))
        let context = context(coordinator)
        let plain = try context.insertNewObject(forEntityName: "Artist")
        let assigned = try context.insertNewObject(forEntityName: "Artist")
        try context.assign(assigned, to: second)
        try context.save()
        #expect(plain.objectID.storeIdentifier == first.identifier)
        #expect(assigned.objectID.storeIdentifier == second.identifier)
        #expect(throws: PersistenceError.self) { try context.assign(assigned, to: first) }
        let elsewhere = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        let foreign = try elsewhere.addPersistentStore(type: .inMemory)
        #expect(throws: PersistenceError.self) { try context.assign(try context.insertNewObject(forEntityName: "Tag"), to: foreign) }
    }
}

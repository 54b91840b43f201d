import Foundation
import Testing
@testable import LimelightData

/// `mutableSetValue(forKey:)` and `mutableOrderedSetValue(forKey:)` answer the bulk calls of
/// `NSMutableSet` and `NSMutableOrderedSet` that code written for Core Data makes.
@Suite struct MutableRelationshipProxyTests {
    /// Users follow users (a many-to-many of one entity with itself); a playlist keeps its tracks in order.
    static func model() -> ManagedObjectModel {
        let tracks = RelationshipDescription(name: "tracks", destination: "Track", inverse: "playlist", toMany: true)
        tracks.isOrdered = true
        return ManagedObjectModel(entities: [
            EntityDescription(name: "User", properties: [
                AttributeDescription(name: "handle", type: .string),
                RelationshipDescription(name: "following", destination: "User", inverse: "followers", toMany: true),
                RelationshipDescription(name: "followers", destination: "User", inverse: "following", toMany: true),
            ]),
            EntityDescription(name: "Playlist", properties: [AttributeDescription(name: "title", type: .string), tracks]),
            EntityDescription(name: "Track", properties: [
                AttributeDescription(name: "title", type: .string),
                RelationshipDescription(name: "playlist", destination: "Playlist", inverse: "tracks"),
            ]),
        ])
    }

    static func handles(_ object: ManagedObject, _ key: String) -> Set<String> {
        Set((object.value(forKey: key) as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "handle") as? String })
    }

    @Test func aSetTakesAndGivesUpManyObjectsAtOnceKeepingInverses() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("follows.sqlite")
        do {
            let context = try TestStack.context(model: Self.model(), at: url)
            let users = try ["ann", "bob", "cy", "dee"].map { handle in
                let user = try context.insertNewObject(forEntityName: "User")
                user.setValue(handle, forKey: "handle")
                return user
            }
            let following = users[0].mutableSetValue(forKey: "following")
            following.addObjects(from: users[1...3])
            following.addObjects(from: [users[1]])
            #expect(Self.handles(users[0], "following") == ["bob", "cy", "dee"])
            #expect(Self.handles(users[2], "followers") == ["ann"])
            following.minus([users[1], users[3]])
            following.union([users[3]])
            #expect(Self.handles(users[0], "following") == ["cy", "dee"])
            #expect(Self.handles(users[1], "followers").isEmpty)
            try context.save()
        }
        let context = try TestStack.context(model: Self.model(), at: url)
        let ann = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "User", predicate: try QueryPredicate(format: "handle == 'ann'"))).first)
        #expect(Self.handles(ann, "following") == ["cy", "dee"])
    }

    @Test func anOrderedSetAppendsAndRemovesManyObjectsInOrder() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("playlist.sqlite")
        do {
            let context = try TestStack.context(model: Self.model(), at: url)
            let playlist = try context.insertNewObject(forEntityName: "Playlist")
            let tracks = try (1...5).map { number in
                let track = try context.insertNewObject(forEntityName: "Track")
                track.setValue("track \(number)", forKey: "title")
                return track
            }
            let list = playlist.mutableOrderedSetValue(forKey: "tracks")
            list.add(tracks[4])
            list.addObjects(from: tracks[0...3] + [tracks[4]])
            #expect(list.array.compactMap { $0.value(forKey: "title") as? String } == ["track 5", "track 1", "track 2", "track 3", "track 4"])
            list.removeObjects(in: [tracks[1], tracks[3]])
            #expect(tracks[1].value(forKey: "playlist") == nil)
            try context.save()
        }
        let context = try TestStack.context(model: Self.model(), at: url)
        let playlist = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Playlist")).first)
        let titles = playlist.mutableOrderedSetValue(forKey: "tracks").array.compactMap { $0.value(forKey: "title") as? String }
        #expect(titles == ["track 5", "track 1", "track 3"])
    }

    /// Code written for Core Data reaches a relationship by key path (`#keyPath(Folder.children)`,
    /// or through a to-one): the proxy is the relationship's, an empty to-one on the way gives an
    /// empty proxy that changes nothing, and a step that is no to-one fails the next save.
    @Test func aKeyPathReachesTheRelationshipThroughToOnes() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("paths.sqlite")
        do {
            let context = try TestStack.context(model: Self.model(), at: url)
            let playlist = try context.insertNewObject(forEntityName: "Playlist")
            let tracks = try (1...3).map { number in
                let track = try context.insertNewObject(forEntityName: "Track")
                track.setValue("track \(number)", forKey: "title")
                return track
            }
            playlist.mutableOrderedSetValue(forKeyPath: "tracks").addObjects(from: tracks[0...1])
            tracks[0].mutableOrderedSetValue(forKeyPath: "playlist.tracks").add(tracks[2])
            playlist.mutableOrderedSetValue(forKeyPath: "tracks").moveObjects(at: IndexSet(integer: 2), to: 0)
            #expect(tracks[2].value(forKey: "playlist") as? ManagedObject === playlist)

            let loose = try context.insertNewObject(forEntityName: "Track")
            let nowhere = loose.mutableOrderedSetValue(forKeyPath: "playlist.tracks")
            nowhere.add(tracks[0])
            #expect(nowhere.isEmpty)
            #expect(tracks[0].value(forKey: "playlist") as? ManagedObject === playlist)
            context.delete(loose)

            let users = try ["ann", "bob"].map { handle in
                let user = try context.insertNewObject(forEntityName: "User")
                user.setValue(handle, forKey: "handle")
                return user
            }
            users[0].mutableSetValue(forKeyPath: "following").add(users[1])
            #expect(Self.handles(users[1], "followers") == ["ann"])
            try context.save()

            users[0].mutableSetValue(forKeyPath: "handle.following").add(users[1])
            #expect(throws: ValidationError.self) { try context.save() }
            context.rollback()
        }
        let context = try TestStack.context(model: Self.model(), at: url)
        let playlist = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Playlist")).first)
        let titles = playlist.mutableOrderedSetValue(forKeyPath: "tracks").array.compactMap { $0.value(forKey: "title") as? String }
        #expect(titles == ["track 3", "track 1", "track 2"])
    }
}

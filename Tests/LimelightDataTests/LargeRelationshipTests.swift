import Foundation
import Testing
@testable import LimelightData

/// Relationships with hundreds of objects on one side: what is written and kept as they change.
@Suite struct LargeRelationshipTests {
    /// A library named Alpha and `count` members (M0, M1 …), not yet related.
    func libraryAndMembers(_ count: Int, in context: ManagedObjectContext) throws -> (library: ManagedObject, members: [ManagedObject]) {
        let library = try context.insertNewObject(forEntityName: "Library")
        library.setValue("Alpha", forKey: "name")
        let members = try (0..<count).map { index in
            let member = try context.insertNewObject(forEntityName: "Member")
            member.setValue("M\(index)", forKey: "name")
            return member
        }
        return (library, members)
    }

    /// Adding one member to a library with hundreds writes one join row, not all of them again,
    /// and the rows stay right through additions, removals and a whole replacement.
    @Test func aManyToManyChangeWritesOnlyTheRowsThatChanged() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("m2m-rows.sqlite")
        let context = try LibraryGraph.context(url)
        let (library, members) = try libraryAndMembers(300, in: context)
        library.setValue(Set(members), forKey: "members")
        try context.save()
        let log = try StatementLog(context)
        let newcomer = try context.insertNewObject(forEntityName: "Member")
        newcomer.setValue("New", forKey: "name")
        library.mutableSetValue(forKey: "members").insert(newcomer)
        library.mutableSetValue(forKey: "members").remove(members[7])
        let joinStatements = try log.during { try context.save() }.statements.filter { $0.contains("INTO Z_") || $0.contains("FROM Z_") }
        // Each side of the relationship may write its row once: the library's and the members'.
        #expect(joinStatements.filter { $0.hasPrefix("INSERT") }.count <= 2, "\(joinStatements)")
        #expect(joinStatements.filter { $0.hasPrefix("DELETE") }.count <= 2, "\(joinStatements)")
        #expect(joinStatements.allSatisfy { !$0.hasPrefix("DELETE") || $0.contains(" AND ") }, "\(joinStatements)")

        library.setValue(Set(members.prefix(3)), forKey: "members")
        try context.save()
        let reopened = try LibraryGraph.context(url)
        let alpha = try #require(try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Library")).first)
        let names = (alpha.value(forKey: "members") as? Set<ManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }
        #expect(names.map(Set.init) == ["M0", "M1", "M2"])
        let m7 = try #require(try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Member", predicate: try QueryPredicate(format: "name == 'M7'"))).first)
        #expect((m7.value(forKey: "libraries") as? Set<ManagedObject>)?.isEmpty == true)
    }

    /// A to-many filled one object at a time past the size where it keeps a set of its IDs: no
    /// object twice, removals and undo right on both sides.
    @Test func aLargeToManyFilledOneByOneStaysExact() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("large.sqlite")
        let context = try LibraryGraph.context(url)
        let (library, members) = try libraryAndMembers(100, in: context)
        for member in members + members.prefix(10) { library.mutableSetValue(forKey: "members").insert(member) }
        // The other side too, for objects the library already holds.
        members[50].mutableSetValue(forKey: "libraries").insert(library)
        #expect(library.objectIDs(forRelationshipNamed: "members") == members.map(\.objectID))
        try context.save()
        context.processPendingChanges()

        library.mutableSetValue(forKey: "members").remove(members[60])
        context.processPendingChanges()
        #expect(library.mutableSetValue(forKey: "members").count == 99)
        #expect((members[60].value(forKey: "libraries") as? Set<ManagedObject>)?.isEmpty == true)
        context.undo()
        #expect(library.mutableSetValue(forKey: "members").contains(members[60]))
        #expect((members[60].value(forKey: "libraries") as? Set<ManagedObject>) == [library])
        context.redo()
        library.mutableSetValue(forKey: "members").insert(members[60])
        library.mutableSetValue(forKey: "members").insert(members[60])
        #expect(library.mutableSetValue(forKey: "members").count == 100)
        try context.save()

        let reopened = try LibraryGraph.context(url)
        let alpha = try #require(try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Library")).first)
        #expect((alpha.value(forKey: "members") as? Set<ManagedObject>)?.count == 100)
    }

    /// An ordered to-many's undo puts back the order, not only the members.
    @Test func undoingAChangeToAnOrderedToManyRestoresTheOrder() throws {
        let songs = RelationshipDescription(name: "songs", destination: "Song", inverse: "playlist", toMany: true)
        songs.isOrdered = true
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Playlist", properties: [songs]),
            EntityDescription(name: "Song", properties: [
                AttributeDescription(name: "title", type: .string),
                RelationshipDescription(name: "playlist", destination: "Playlist", inverse: "songs"),
            ]),
        ])
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: model, at: folder.file("ordered.sqlite"))
        let playlist = try context.insertNewObject(forEntityName: "Playlist")
        let titles = (0..<40).map { "S\($0)" }
        for title in titles {
            let song = try context.insertNewObject(forEntityName: "Song")
            song.setValue(title, forKey: "title")
            playlist.mutableSetValue(forKey: "songs").insert(song)
        }
        try context.save()
        context.processPendingChanges()
        func order() -> [String] {
            (playlist.value(forKey: "songs") as? [ManagedObject])?.compactMap { $0.value(forKey: "title") as? String } ?? []
        }
        #expect(order() == titles)
        let third = try #require((playlist.value(forKey: "songs") as? [ManagedObject])?[2])
        playlist.mutableSetValue(forKey: "songs").remove(third)
        context.processPendingChanges()
        #expect(order() == titles.filter { $0 != "S2" })
        context.undo()
        #expect(order() == titles)
    }
}

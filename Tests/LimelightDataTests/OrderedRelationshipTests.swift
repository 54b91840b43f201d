import Foundation
import Testing
@testable import LimelightData

/// Ordered to-many relationships on disk in Core Data's layout: positions in `Z_FOK_` columns,
/// beside the foreign key or in the join table, read back in order, written as Core Data reads
/// them, kept through migration; stores without the columns still open.
struct OrderedRelationshipTests {
    /// Albums with an ordered to-many of photos (inverse to-one) and an ordered many-to-many of
    /// people, whose inverse is unordered.
    static func model(version: Int = 1) -> ManagedObjectModel {
        let photos = RelationshipDescription(name: "photos", destination: "Photo", inverse: "album", toMany: true)
        photos.isOrdered = true
        let people = RelationshipDescription(name: "people", destination: "Person", inverse: "albums", toMany: true)
        people.isOrdered = true
        var albumProperties: [PropertyDescription] = [AttributeDescription(name: "title", type: .string), photos, people]
        if version == 2 { albumProperties.append(AttributeDescription(name: "year", type: .integer16)) }
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Album", properties: albumProperties),
            EntityDescription(name: "Photo", properties: [AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "album", destination: "Album", inverse: "photos")]),
            EntityDescription(name: "Person", properties: [AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "albums", destination: "Album", inverse: "people", toMany: true)]),
        ])
    }

    func open(_ url: URL, model: ManagedObjectModel = model(), options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        try TestStack.context(model: model, at: url, options: options)
    }

    /// An album whose photos and people were added in an order other than their keys'.
    func makeAlbum(_ context: ManagedObjectContext) throws -> ManagedObject {
        let album = try context.insertNewObject(forEntityName: "Album")
        album.setValue("Summer", forKey: "title")
        var photos: [ManagedObject] = []
        for name in ["p1", "p2", "p3", "p4"] {
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue(name, forKey: "name")
            photos.append(photo)
        }
        var people: [ManagedObject] = []
        for name in ["Ann", "Bob", "Cy"] {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue(name, forKey: "name")
            people.append(person)
        }
        album.setValue([photos[2], photos[0], photos[3], photos[1]], forKey: "photos")
        album.setValue([people[1], people[2], people[0]], forKey: "people")
        try context.save()
        return album
    }

    func names(_ album: ManagedObject, _ key: String) -> [String] {
        (album.value(forKey: key) as? [ManagedObject] ?? []).compactMap { $0.value(forKey: "name") as? String }
    }

    func firstAlbum(_ context: ManagedObjectContext, prefetching: [String] = []) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: "Album")
        request.relationshipKeyPathsForPrefetching = prefetching
        return try #require(try context.fetch(request).first)
    }

    @Test func ordersAreKeptInCoreDatasColumns() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("albums.sqlite")
        let made = try open(url)
        let album = try makeAlbum(made)
        let albumKey = try #require(album.objectID.primaryKey)

        let db = try SQLiteConnection(path: url.path, readOnly: true)
        var photoOrder: [String] = []
        try db.query("SELECT ZNAME, Z_FOK_ALBUM FROM ZPHOTO ORDER BY Z_FOK_ALBUM") { row in
            photoOrder.append("\(SQLiteValue(statement: row, column: 0)) \(SQLiteValue(statement: row, column: 1))")
        }
        #expect(photoOrder == ["'p3' 1024", "'p1' 2048", "'p4' 3072", "'p2' 4096"])
        let model = try #require(made.persistentStoreCoordinator?.managedObjectModel)
        let people = try #require(model.entity(named: "Album")?.property(named: "people") as? RelationshipDescription)
        let join = try #require(SQLiteSchema(model: model).joinTable(for: people))
        var peopleOrder: [String] = []
        try db.query("SELECT p.ZNAME FROM \(join.name) j JOIN ZPERSON p ON p.Z_PK = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) = ? ORDER BY j.Z_FOK_\(join.destinationColumn.dropFirst(2))",
                     [.integer(albumKey)]) { row in
            if case .text(let name) = SQLiteValue(statement: row, column: 0) { peopleOrder.append(name) }
        }
        db.close()
        #expect(peopleOrder == ["Bob", "Cy", "Ann"])

        // Read back by another coordinator: faulted and prefetched alike.
        for prefetching in [[], ["photos", "people"]] {
            let rereading = try open(url)
            let reread = try firstAlbum(rereading, prefetching: prefetching)
            #expect(names(reread, "photos") == ["p3", "p1", "p4", "p2"])
            #expect(names(reread, "people") == ["Bob", "Cy", "Ann"])
        }

        // A reorder, a removal and an addition are saved as such.
        let context = try open(url)
        let editing = try firstAlbum(context)
        var photos = try #require(editing.value(forKey: "photos") as? [ManagedObject])
        photos.reverse()
        photos.removeLast()
        let extra = try context.insertNewObject(forEntityName: "Photo")
        extra.setValue("p5", forKey: "name")
        photos.insert(extra, at: 1)
        editing.setValue(photos, forKey: "photos")
        try context.save()
        let after = try open(url)
        #expect(names(try firstAlbum(after), "photos") == ["p2", "p5", "p4", "p1"])
    }

    /// Positions as Core Data wrote them decide the order, whatever the keys; members another
    /// program linked without a position come last.
    @Test func positionsWrittenElsewhereAreRead() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("albums.sqlite")
        let maker = try open(url)
        _ = try makeAlbum(maker)
        let db = try SQLiteConnection(path: url.path, readOnly: false)
        try db.execute("UPDATE ZPHOTO SET Z_FOK_ALBUM = CASE ZNAME WHEN 'p1' THEN 5 WHEN 'p2' THEN 7 WHEN 'p3' THEN 9 ELSE NULL END")
        db.close()
        let reader = try open(url)
        #expect(names(try firstAlbum(reader), "photos") == ["p1", "p2", "p3", "p4"])
    }

    /// A store whose tables lack the columns (written by an earlier version of this framework)
    /// gains them when it opens, and opens read-only without them, in key order.
    @Test func storesWithoutTheColumnsStillOpen() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("albums.sqlite")
        let maker = try open(url)
        _ = try makeAlbum(maker)
        let db = try SQLiteConnection(path: url.path, readOnly: false)
        try db.execute("ALTER TABLE ZPHOTO DROP COLUMN Z_FOK_ALBUM")
        var byKey: [String] = []
        try db.query("SELECT ZNAME FROM ZPHOTO ORDER BY Z_PK") { row in
            if case .text(let name) = SQLiteValue(statement: row, column: 0) { byKey.append(name) }
        }
        db.close()
        let readOnlyContext = try open(url, options: [StoreOption.readOnly: true])
        #expect(names(try firstAlbum(readOnlyContext), "photos") == byKey)
        let writable = try open(url)
        let album = try firstAlbum(writable)
        album.setValue(Array((album.value(forKey: "photos") as? [ManagedObject] ?? []).reversed()), forKey: "photos")
        try writable.save()
        let reader = try open(url)
        #expect(names(try firstAlbum(reader), "photos") == Array(byKey.reversed()))
    }

    @Test func migrationKeepsTheOrder() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("albums.sqlite")
        let maker = try open(url)
        _ = try makeAlbum(maker)
        try MigrationManager(sourceModel: Self.model(), destinationModel: Self.model(version: 2)).migrateStore(at: url)
        let reader = try open(url, model: Self.model(version: 2))
        let migrated = try firstAlbum(reader)
        #expect(names(migrated, "photos") == ["p3", "p1", "p4", "p2"])
        #expect(names(migrated, "people") == ["Bob", "Cy", "Ann"])
    }
}

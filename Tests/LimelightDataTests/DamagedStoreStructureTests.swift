import Foundation
import Testing
@testable import LimelightData

/// Stores whose rows, keys or tables break Core Data's layout: rows of no entity, foreign keys to
/// rows that are gone, key counters behind the table, missing or damaged metadata. Each is read as
/// far as it can be without guessing, refused naming the place where it cannot, and never written
/// to by a failed open.
@Suite struct DamagedStoreStructureTests {
    static func model() -> ManagedObjectModel { StoreLayoutTests.model() }

    /// A store with two shelves (Z_PK 1 and 2, neighbours of each other) and a disc (ZITEM Z_PK 1)
    /// on the first, then `sql` run on it by `sqlite3`.
    static func store(at url: URL, damagedBy sql: String) throws {
        do {
            let context = try TestStack.context(model: model(), at: url)
            let shelf = try context.insertNewObject(forEntityName: "Shelf"), other = try context.insertNewObject(forEntityName: "Shelf")
            shelf.setValue("first", forKey: "label")
            other.setValue("second", forKey: "label")
            shelf.mutableSetValue(forKey: "neighbours").insert(other)
            let disc = try context.insertNewObject(forEntityName: "Disc")
            disc.setValue("Blue", forKey: "title")
            disc.setValue(shelf, forKey: "shelf")
            try context.save()
        }
        if !sql.isEmpty { try sqliteEdit(url, sql) }
    }

    static func fetch(_ entity: String, _ context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
    }

    @Test(arguments: ["NULL", "99", "'two'", "4"])
    func aRowOfNoEntityOfItsTableIsRefusedNamingIt(_ entityNumber: String) throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        // 4 is Shelf's number: an entity, but one kept in another table.
        try Self.store(at: url, damagedBy: "UPDATE ZITEM SET Z_ENT = \(entityNumber) WHERE Z_PK = 1")
        let before = try Data(contentsOf: url)
        let context = try TestStack.context(model: Self.model(), at: url)
        let damage = expectDamage { _ = try Self.fetch("Item", context) }
        #expect(damage?.table == "ZITEM")
        #expect(damage?.column == "Z_ENT")
        #expect(damage?.primaryKey == 1)
        #expect(damage?.path == url.path)
        if entityNumber == "4" { #expect(damage?.reason.contains("Shelf") == true) }
        // Only the IDs: the same refusal, not a shorter list.
        let request = FetchRequest<ManagedObjectID>(entityName: "Item")
        request.resultType = .managedObjectID
        let idDamage = expectDamage { _ = try context.fetch(request) }
        #expect(idDamage?.column == "Z_ENT")
        // A fetch of a sub-entity does not see the row, and reads.
        #expect(try Self.fetch("Volume", context).isEmpty)
        #expect(try Data(contentsOf: url) == before)
    }

    /// Core Data: a to-one whose row is gone is a fault that, fired, reads as deleted
    /// (`shouldDeleteInaccessibleFaults`); the foreign key stays as it is when the source saves.
    @Test func aToOneToARowThatIsGoneReadsAsAnInaccessibleFault() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        try Self.store(at: url, damagedBy: "UPDATE ZITEM SET ZSHELF = 99")
        let context = try TestStack.context(model: Self.model(), at: url)
        let disc = try #require(try Self.fetch("Disc", context).first)
        let shelf = try #require(disc.value(forKey: "shelf") as? ManagedObject)
        #expect(shelf.objectID.primaryKey == 99)
        #expect(shelf.value(forKey: "label") == nil)
        #expect(shelf.isDeleted)
        disc.setValue("Green", forKey: "title")
        try context.save()
        #expect(try sqliteQuery(url, "SELECT ZTITLE, ZSHELF FROM ZITEM") == ["Green|99"])

        // Without deleting inaccessible faults, the object is not found.
        let strict = try TestStack.context(model: Self.model(), at: url)
        strict.shouldDeleteInaccessibleFaults = false
        let missing = try #require(try Self.fetch("Disc", strict).first?.value(forKey: "shelf") as? ManagedObject)
        #expect(throws: PersistenceError.self) { try strict.existingObject(with: missing.objectID) }
    }

    /// A fault whose row holds a damaged value: `existingObject(with:)` throws the damage; fired
    /// by a property, the object stays a fault (Core Data: a fault it cannot fulfil) and the next
    /// save refuses to go on naming it, writing nothing.
    @Test func aFaultOfADamagedRowReportsTheDamage() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        try Self.store(at: url, damagedBy: "UPDATE ZSHELF SET ZLABEL = X'FF00FF' WHERE Z_PK = (SELECT ZSHELF FROM ZITEM)")
        let before = try sqliteQuery(url, "SELECT Z_PK, hex(ZLABEL) FROM ZSHELF ORDER BY Z_PK")
        let context = try TestStack.context(model: Self.model(), at: url)
        let disc = try #require(try Self.fetch("Disc", context).first)
        let shelf = try #require(disc.value(forKey: "shelf") as? ManagedObject)
        let damage = expectDamage { _ = try context.existingObject(with: shelf.objectID) }
        #expect(damage?.table == "ZSHELF")
        #expect(damage?.column == "ZLABEL")
        #expect(damage?.primaryKey == shelf.objectID.primaryKey)
        #expect(damage?.reason.contains("not UTF-8") == true)
        #expect(shelf.isFault)
        // Touched, it reads as empty and stays a fault; the save reports it.
        #expect(shelf.value(forKey: "label") == nil)
        #expect(shelf.isFault)
        disc.setValue("Green", forKey: "title")
        #expect { try context.save() } throws: { "\($0)".contains("ZLABEL") }
        #expect(try sqliteQuery(url, "SELECT ZTITLE FROM ZITEM") == ["Blue"])
        #expect(try sqliteQuery(url, "SELECT Z_PK, hex(ZLABEL) FROM ZSHELF ORDER BY Z_PK") == before)
    }

    /// A join-table row naming a row that is gone is no member: Core Data's fault for it would be
    /// inaccessible. (Repeated rows cannot be: the pair is the join table's primary key.)
    @Test func aJoinTableRowNamingAMissingRowIsNoMember() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        try Self.store(at: url, damagedBy: "")
        let table = try #require(try sqliteQuery(url, "SELECT name FROM sqlite_master WHERE name LIKE 'Z_4NEIGHBOURS%'").first)
        try sqliteEdit(url, "INSERT INTO \(table) VALUES (1, 77)")
        let before = try Data(contentsOf: url)
        let context = try TestStack.context(model: Self.model(), at: url)
        let shelves = try Self.fetch("Shelf", context)
        let first = try #require(shelves.first { $0.value(forKey: "label") as? String == "first" })
        let neighbours = try #require(first.value(forKey: "neighbours") as? Set<ManagedObject>)
        #expect(neighbours.compactMap { $0.value(forKey: "label") as? String }.sorted() == ["second"])
        #expect(try Data(contentsOf: url) == before)
    }

    /// Positions of an ordered to-many that repeat (or are NULL, see `OrderedRelationshipTests`)
    /// order by key among themselves; reordering writes fresh positions.
    @Test func repeatedPositionsOfAnOrderedToManyReadInKeyOrder() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("albums.sqlite")
        let ordered = OrderedRelationshipTests()
        _ = try ordered.makeAlbum(try ordered.open(url))
        try sqliteEdit(url, "UPDATE ZPHOTO SET Z_FOK_ALBUM = 3")
        let byKey = try sqliteQuery(url, "SELECT ZNAME FROM ZPHOTO ORDER BY Z_PK")
        let context = try ordered.open(url)
        let album = try ordered.firstAlbum(context)
        #expect(ordered.names(album, "photos") == byKey)
        let photos = album.mutableOrderedSetValue(forKey: "photos")
        photos.moveObjects(at: IndexSet(integer: photos.count - 1), to: 0)
        try context.save()
        let expected = [byKey[byKey.count - 1]] + byKey.dropLast()
        #expect(try sqliteQuery(url, "SELECT ZNAME FROM ZPHOTO ORDER BY Z_FOK_ALBUM") == expected)
        let reader = try ordered.open(url)
        #expect(ordered.names(try ordered.firstAlbum(reader), "photos") == expected)
    }

    /// A counter below the table's largest key (a store another program wrote): new objects take
    /// keys above every existing one, and the counter catches up.
    @Test func aKeyCounterBehindItsTableNeverReusesAKey() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        try Self.store(at: url, damagedBy: "UPDATE Z_PRIMARYKEY SET Z_MAX = 0")
        let context = try TestStack.context(model: Self.model(), at: url)
        try context.insertNewObject(forEntityName: "Shelf").setValue("third", forKey: "label")
        try context.insertNewObject(forEntityName: "Disc").setValue("Red", forKey: "title")
        try context.save()
        #expect(try sqliteQuery(url, "SELECT ZLABEL FROM ZSHELF WHERE Z_PK < 3 ORDER BY ZLABEL") == ["first", "second"])
        #expect(try sqliteQuery(url, "SELECT Z_PK, ZLABEL FROM ZSHELF WHERE Z_PK = 3") == ["3|third"])
        #expect(try sqliteQuery(url, "SELECT Z_PK, ZTITLE FROM ZITEM ORDER BY Z_PK") == ["1|Blue", "2|Red"])
        #expect(try sqliteQuery(url, "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_MAX > 0 ORDER BY Z_ENT") == ["Item|2", "Shelf|3"])
    }

    @Test(arguments: [
        ("DROP TABLE Z_METADATA", "Z_METADATA"),
        ("UPDATE Z_METADATA SET Z_PLIST = X''", "Z_PLIST"),
        ("UPDATE Z_METADATA SET Z_PLIST = X'62706C6973743030DEADBEEF'", "Z_PLIST"),
        ("UPDATE Z_METADATA SET Z_UUID = NULL", "UUID"),
        ("DROP TABLE ZSHELF", "ZSHELF"),
        ("DELETE FROM Z_PRIMARYKEY WHERE Z_NAME = 'Shelf'", "Shelf"),
        ("ALTER TABLE ZITEM DROP COLUMN ZTITLE", "ZTITLE"),
        // Remade by another tool without the key, so a row may have none or share one.
        ("""
         CREATE TABLE ZSHELF2 AS SELECT * FROM ZSHELF; DROP TABLE ZSHELF; ALTER TABLE ZSHELF2 RENAME TO ZSHELF;
         INSERT INTO ZSHELF (Z_PK, Z_ENT, Z_OPT, ZLABEL) VALUES (NULL, 4, 1, 'keyless'), (1, 4, 1, 'twin')
         """, "Z_PK is not its INTEGER PRIMARY KEY"),
    ])
    func missingOrDamagedTablesAreRefusedWhenOpeningAndTheFileIsLeftAlone(_ sql: String, _ named: String) throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        try Self.store(at: url, damagedBy: sql)
        let before = try Data(contentsOf: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect { try coordinator.addPersistentStore(type: .sqlite, at: url) } throws: { error in
            let message = "\(error)"
            return error is PersistenceError && message.contains(url.path) && message.contains(named)
        }
        #expect(try Data(contentsOf: url) == before)
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))) ?? Data()
        #expect(wal.isEmpty)
    }
}

import Foundation
import Testing
@testable import LimelightData

/// Attributes that allow external storage keep Core Data's column format: a marker byte before
/// the bytes, or a reference to a file in the store's `_EXTERNAL_DATA` folder.
@Suite struct ExternalBinaryDataTests {
    static func model() -> ManagedObjectModel {
        let image = AttributeDescription(name: "image", type: .binaryData)
        image.allowsExternalBinaryDataStorage = true
        let photo = EntityDescription(name: "Photo", properties: [
            AttributeDescription(name: "title", type: .string),
            image,
            AttributeDescription(name: "thumbnail", type: .binaryData),
        ])
        return ManagedObjectModel(entities: [photo])
    }

    static func context(_ url: URL) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Runs SQL on the store with the `sqlite3` program, as Core Data writing the file would.
    static func sqliteWrite(_ url: URL, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [url.path, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// A store at `url` holding one photo, whose column the test then rewrites as another tool would.
    static func saveOnePhoto(at url: URL) throws {
        let context = try Self.context(url)
        try context.insertNewObject(forEntityName: "Photo").setValue(Data([1]), forKey: "image")
        try context.save()
    }

    /// A reference to an external file, as Core Data writes it in the column (hex).
    static func reference(to name: String) -> String {
        "02" + Data(name.utf8).map { String(format: "%02X", $0) }.joined() + "00"
    }

    static func photo(in context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: "Photo")
        return try #require(try context.fetch(request).first)
    }

    @Test func valuesAreWrittenBehindTheInlineMarkerAndReadBackWithout() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("photos.sqlite")
        let image = Data([0x01, 0x02, 0x00, 0xFF]), thumbnail = Data([0x01, 0x09])
        do {
            let context = try Self.context(url)
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue(image, forKey: "image")
            photo.setValue(thumbnail, forKey: "thumbnail")
            try context.save()
        }
        // The external-storage column carries the marker; the plain one holds the bytes alone.
        #expect(try sqliteQuery(url, "SELECT hex(ZIMAGE), hex(ZTHUMBNAIL) FROM ZPHOTO") == ["010102" + "00FF|0109"])
        let context = try Self.context(url)
        let photo = try Self.photo(in: context)
        #expect(photo.value(forKey: "image") as? Data == image)
        #expect(photo.value(forKey: "thumbnail") as? Data == thumbnail)
        let request = FetchRequest<ManagedObject>(entityName: "Photo")
        request.propertiesToFetch = ["image"]
        #expect(try Self.context(url).fetchDictionaries(request).first?["image"] as? Data == image)
    }

    @Test func aReferenceIsReadFromTheExternalDataFolder() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("photos.sqlite")
        try Self.saveOnePhoto(at: url)
        // What Core Data writes for a large value: the file, and its name behind marker 0x02.
        let name = UUID().uuidString
        let external = folder.url.appendingPathComponent(".photos_SUPPORT/_EXTERNAL_DATA", isDirectory: true)
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        let large = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try large.write(to: external.appendingPathComponent(name))
        let reference = Self.reference(to: name)
        try Self.sqliteWrite(url, "UPDATE ZPHOTO SET ZIMAGE = X'\(reference)'")

        let context = try Self.context(url)
        let photo = try Self.photo(in: context)
        #expect(photo.value(forKey: "image") as? Data == large)

        // Changing another attribute leaves the reference as it was.
        photo.setValue("Harbour", forKey: "title")
        try context.save()
        #expect(try sqliteQuery(url, "SELECT hex(ZIMAGE) FROM ZPHOTO") == [reference])
    }

    @Test func aMissingFileReadsAsNilAndKeepsItsReference() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("photos.sqlite")
        try Self.saveOnePhoto(at: url)
        let reference = Self.reference(to: UUID().uuidString)
        try Self.sqliteWrite(url, "UPDATE ZPHOTO SET ZIMAGE = X'\(reference)'")
        let context = try Self.context(url)
        let photo = try Self.photo(in: context)
        #expect(photo.value(forKey: "image") == nil)
        photo.setValue("Lost", forKey: "title")
        try context.save()
        #expect(try sqliteQuery(url, "SELECT hex(ZIMAGE) FROM ZPHOTO") == [reference])
    }

    @Test func bytesWithoutAMarkerAreTakenAsTheValue() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("photos.sqlite")
        try Self.saveOnePhoto(at: url)
        // A store written by a tool that keeps no marker: the bytes are the value.
        try Self.sqliteWrite(url, "UPDATE ZPHOTO SET ZIMAGE = X'FFD8FFE0'")
        let first = try Self.context(url)
        #expect(try Self.photo(in: first).value(forKey: "image") as? Data == Data([0xFF, 0xD8, 0xFF, 0xE0]))
        // A 0x02 blob that is not a file name is bytes too.
        try Self.sqliteWrite(url, "UPDATE ZPHOTO SET ZIMAGE = X'02414243'")
        let second = try Self.context(url)
        #expect(try Self.photo(in: second).value(forKey: "image") as? Data == Data([0x02, 0x41, 0x42, 0x43]))
    }
}

import Foundation
import Testing
@testable import LimelightData

/// A row written with NULLs in columns whose Swift properties are declared non-optional, as a store
/// from an older model version or another client can hold.
final class Reading: ManagedObject {
    @Managed var taken: Date
    @Managed var sensor: UUID
    @Managed var source: URL
    @Managed var amount: Decimal
    @Managed var label: String
    @Managed var count: Int32
}

@Suite struct ManagedDefaultValueTests {
    static func model() -> ManagedObjectModel {
        let reading = EntityDescription(name: "Reading", properties: [
            AttributeDescription(name: "taken", type: .date),
            AttributeDescription(name: "sensor", type: .uuid),
            AttributeDescription(name: "source", type: .uri),
            AttributeDescription(name: "amount", type: .decimal),
            AttributeDescription(name: "label", type: .string),
            AttributeDescription(name: "count", type: .integer32),
        ])
        reading.managedObjectClassName = "Reading"
        return ManagedObjectModel(entities: [reading])
    }

    @Test func nonOptionalPropertiesReadNullAsTheirTypesFallback() throws {
        ManagedObjectClassRegistry.shared.register(Reading.self, as: "Reading")
        let folder = try TemporaryFolder()
        let url = folder.file("Readings.sqlite")
        let writer = try TestStack.context(model: Self.model(), at: url)
        _ = try writer.insertNewObject(forEntityName: "Reading")
        try writer.save()

        let reader = try TestStack.context(model: Self.model(), at: url)
        let reading = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Reading"), as: Reading.self).first)
        #expect(reading.value(forKey: "taken") == nil)
        #expect(reading.taken == Date(timeIntervalSinceReferenceDate: 0))
        #expect(reading.sensor == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(reading.source == URL(fileURLWithPath: "/"))
        #expect(reading.amount == 0)
        #expect(reading.label == "")
        #expect(reading.count == 0)

        // Once set, the real values read back, through a save and a fresh context.
        let taken = Date(timeIntervalSince1970: 1_700_000_000)
        reading.taken = taken
        reading.source = URL(string: "https://example.org/feed")!
        try reader.save()
        let again = try TestStack.context(model: Self.model(), at: url)
        let saved = try #require(try again.fetch(FetchRequest<ManagedObject>(entityName: "Reading"), as: Reading.self).first)
        #expect(saved.taken == taken)
        #expect(saved.source.absoluteString == "https://example.org/feed")
    }
}

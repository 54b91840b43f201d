import Foundation
import LimelightData
import Testing

/// The application's own class for GeneratedOwner, whose code generation is "Category/Extension":
/// the plugin generates its properties in an extension, as Xcode does.
final class Owner: ManagedObject {
    /// Behaviour of the application's, next to the generated properties.
    var greeting: String { "Hello, \(name ?? "nobody")" }
}

/// The classes the ManagedObjectClasses plugin generated from Fixtures/Generated.xcdatamodeld when
/// this target was built, used as an application uses them: every kind of attribute and
/// relationship is written, saved to an SQLite store, and read back in another context.
@Suite struct GeneratedClassesTests {
    static let modelURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Generated.xcdatamodeld")

    /// A store in a new folder, with the generated classes registered.
    static func open(_ folder: URL) throws -> ManagedObjectContext {
        GeneratedModelClasses.register()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: modelURL))
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("Generated.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("limelight-classes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func everyAttributeTypeIsWrittenSavedAndReadBack() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let identifier = UUID()
        let when = Date(timeIntervalSinceReferenceDate: 700_000_000)
        do {
            let context = try Self.open(folder)
            let sample = try #require(try context.insertNewObject(forEntityName: "GeneratedSample") as? Sample)
            sample.int16Scalar = -16
            sample.int32Scalar = 32
            sample.int64Scalar = 1 << 40
            sample.doubleScalar = 2.5
            sample.floatScalar = 1.5
            sample.boolScalar = true
            sample.int32Boxed = 7
            sample.doubleBoxed = nil
            sample.boolBoxed = false
            sample.text = "text"
            sample.default = "a keyword as a name"
            sample.repeat = 3
            sample.when = when
            sample.whenScalar = when.timeIntervalSinceReferenceDate + 60
            sample.blob = Data([1, 2, 3])
            sample.price = Decimal(string: "12.34")
            sample.identifier = identifier
            sample.link = URL(string: "https://example.org/a")
            sample.tags = ["red", "green"]
            sample.anything = "any value"
            #expect(context.hasChanges)
            try context.save()
        }
        let context = try Self.open(folder)
        let samples = try context.fetch(FetchRequest<ManagedObject>(entityName: "GeneratedSample"), as: Sample.self)
        let sample = try #require(samples.first)
        #expect(sample.int16Scalar == -16)
        #expect(sample.int32Scalar == 32)
        #expect(sample.int64Scalar == 1 << 40)
        #expect(sample.doubleScalar == 2.5)
        #expect(sample.floatScalar == 1.5)
        #expect(sample.boolScalar)
        #expect(sample.int32Boxed == 7)
        #expect(sample.doubleBoxed == nil)
        #expect(sample.boolBoxed == false)
        #expect(sample.text == "text")
        #expect(sample.default == "a keyword as a name")
        #expect(sample.value(forKey: "default") as? String == "a keyword as a name")
        #expect(sample.repeat == 3)
        #expect(sample.when == when)
        // A scalar date is the seconds since the reference date, stored as a date.
        #expect(sample.whenScalar == when.timeIntervalSinceReferenceDate + 60)
        #expect(sample.value(forKey: "whenScalar") as? Date == when.addingTimeInterval(60))
        let later = FetchRequest<ManagedObject>(entityName: "GeneratedSample", predicate: try QueryPredicate(format: "whenScalar > %@", when))
        #expect(try context.count(for: later) == 1)
        #expect(sample.blob == Data([1, 2, 3]))
        #expect(sample.price == Decimal(string: "12.34"))
        #expect(sample.identifier == identifier)
        #expect(sample.link == URL(string: "https://example.org/a"))
        #expect(sample.tags == ["red", "green"])
        #expect(sample.anything as? String == "any value")
    }

    @Test func relationshipsToOneToManyAndOrderedAndTheCategoryExtension() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let context = try Self.open(folder)
            let sample = try #require(try context.insertNewObject(forEntityName: "GeneratedSample") as? Sample)
            let owner = try #require(try context.insertNewObject(forEntityName: "GeneratedOwner") as? Owner)
            owner.name = "Ada"
            sample.owner = owner
            // The inverse is kept up, through the extension's computed property as well.
            #expect(owner.samples == [sample])
            var steps: [Step] = []
            for instruction in ["chop", "fry", "serve"] {
                let step = try #require(try context.insertNewObject(forEntityName: "GeneratedStep") as? Step)
                step.instruction = instruction
                steps.append(step)
            }
            sample.steps = steps
            #expect(steps[1].sample === sample)
            owner.favorites = [steps[2], steps[0]]
            for name in ["b", "a"] {
                let label = try #require(try context.insertNewObject(forEntityName: "GeneratedLabel") as? Label)
                label.name = name
                label.samples.insert(sample)
            }
            #expect(Set(sample.labels.compactMap(\.name)) == ["a", "b"])
            try context.save()
        }
        let context = try Self.open(folder)
        let sample = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "GeneratedSample"), as: Sample.self).first)
        #expect(sample.steps.map(\.instruction) == ["chop", "fry", "serve"])
        #expect(Set(sample.labels.compactMap(\.name)) == ["a", "b"])
        let owner = try #require(sample.owner)
        #expect(owner.greeting == "Hello, Ada")
        #expect(owner.favorites.map(\.instruction) == ["serve", "chop"])
        // Writing through the extension is a tracked change.
        owner.name = "Grace"
        #expect(owner.hasChanges)
        #expect((owner.changedValues()["name"] ?? nil) as? String == "Grace")
        sample.steps = Array(sample.steps.reversed())
        try context.save()
        // Objects hold their context weakly: it is kept here while they are read.
        let third = try Self.open(folder)
        let again = try #require(try third.fetch(FetchRequest<ManagedObject>(entityName: "GeneratedSample"), as: Sample.self).first)
        #expect(again.steps.map(\.instruction) == ["serve", "fry", "chop"])
        #expect(again.owner?.name == "Grace")
    }

    @Test func inheritanceFollowsTheParentEntities() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = try Self.open(folder)
        let photo = try #require(try context.insertNewObject(forEntityName: "GeneratedPhoto") as? Photo)
        let media: MediaItem = photo
        media.title = "Harbour"
        photo.pixels = 12_000_000
        // A parent entity without a class of its own: its child's class declares its properties.
        let visible = try #require(try context.insertNewObject(forEntityName: "GeneratedVisible") as? Visible)
        visible.secret = "kept"
        visible.shown = "shown"
        try context.save()
        let reader = try Self.open(folder)
        let fetched = try reader.fetch(FetchRequest<ManagedObject>(entityName: "GeneratedMedia"), as: MediaItem.self)
        #expect(fetched.count == 1)
        let read = try #require(fetched.first as? Photo)
        #expect(read.title == "Harbour")
        #expect(read.pixels == 12_000_000)
        let hidden = try reader.fetch(FetchRequest<ManagedObject>(entityName: "GeneratedHidden"), as: Visible.self)
        #expect(hidden.first?.secret == "kept")
        #expect(hidden.first?.shown == "shown")
    }

    @Test func aCompositeAttributeIsADictionaryProperty() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = try Self.open(folder)
        let quake = try #require(try context.insertNewObject(forEntityName: "GeneratedQuake") as? Quake)
        #expect(quake.magnitude == nil)
        // Xcode declares a composite as `[String: Any]?`; numbers take their element's type.
        quake.magnitude = ["richter": 5, "scale": "Mw"]
        #expect(quake.magnitude?["richter"] as? Double == 5)
        try context.save()
        let reader = try Self.open(folder)
        let read = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "GeneratedQuake"), as: Quake.self).first)
        #expect(read.magnitude?["richter"] as? Double == 5 && read.magnitude?["scale"] as? String == "Mw")
        #expect(read.value(forKeyPath: "magnitude.scale") as? String == "Mw")
    }

    @Test func toManyAccessorsAsXcodeGeneratesThem() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = try Self.open(folder)
        let sample = try #require(try context.insertNewObject(forEntityName: "GeneratedSample") as? Sample)
        var steps: [Step] = []
        for instruction in ["a", "b", "c", "d"] {
            let step = try #require(try context.insertNewObject(forEntityName: "GeneratedStep") as? Step)
            step.instruction = instruction
            steps.append(step)
        }
        sample.addToSteps(steps[0])
        sample.addToSteps([steps[1], steps[2]])
        sample.insertIntoSteps(steps[3], at: 1)
        #expect(sample.steps.map(\.instruction) == ["a", "d", "b", "c"])
        #expect(steps[3].sample === sample)
        sample.removeFromSteps(at: 0)
        sample.replaceSteps(at: 0, with: steps[0])
        sample.removeFromSteps(steps[2])
        #expect(sample.steps.map(\.instruction) == ["a", "b"])
        #expect(steps[3].sample == nil)

        let labels = try (0..<3).map { _ in try #require(try context.insertNewObject(forEntityName: "GeneratedLabel") as? Label) }
        sample.addToLabels(Set(labels))
        sample.removeFromLabels(labels[0])
        #expect(sample.labels == Set(labels[1...]))
        #expect(labels[1].samples == [sample])
        // The application's class gets them too, for its category entity.
        let owner = try #require(try context.insertNewObject(forEntityName: "GeneratedOwner") as? Owner)
        owner.addToSamples(sample)
        owner.addToFavorites(steps[1])
        #expect(sample.owner === owner)
        #expect(owner.favorites == [steps[1]])
        try context.save()
        let reader = try Self.open(folder)
        let read = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "GeneratedSample"), as: Sample.self).first)
        #expect(read.steps.map(\.instruction) == ["a", "b"])
        #expect(read.labels.count == 2)
        #expect(read.owner?.favorites.map(\.instruction) == ["b"])
    }

    @Test func orderedToManysReadAsEmptyArraysWithoutAContext() throws {
        let model = try ManagedObjectModel(contentsOf: Self.modelURL)
        try model.resolve()
        let entity = try #require(model.entitiesByName["GeneratedSample"])
        let sample = Sample(entity: entity, insertInto: nil)
        #expect(sample.steps.isEmpty)
        #expect(sample.labels.isEmpty)
        #expect(sample.owner == nil)
        #expect(sample.int16Scalar == 0)
    }
}

import Foundation
import Testing
@testable import LimelightData

/// A map position kept by a transformer of the application's own, as bytes it chooses.
final class TrailPoint: NSObject {
    let latitude: Double
    let longitude: Double
    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// Written as Core Data apps write a `ValueTransformer` subclass: forward to bytes, back from them.
final class TrailPointTransformer: AttributeValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let point = value as? TrailPoint else { return nil }
        return Data("\(point.latitude),\(point.longitude)".utf8)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: ",").compactMap { Double($0) }
        guard parts.count == 2 else { return nil }
        return TrailPoint(latitude: parts[0], longitude: parts[1])
    }
}

/// A class an app archives securely, as its transformable attributes' values.
final class RunPace: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let secondsPerKilometre: Double
    init(secondsPerKilometre: Double) { self.secondsPerKilometre = secondsPerKilometre }
    init?(coder: NSCoder) { secondsPerKilometre = coder.decodeDouble(forKey: "secondsPerKilometre") }
    func encode(with coder: NSCoder) { coder.encode(secondsPerKilometre, forKey: "secondsPerKilometre") }
}

/// A split whose optional fields are archived even when nil, as `encode(_:forKey:)` of an
/// optional writes them: a reference to the archive's `$null`.
final class RunSplit: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let label: String?
    let seconds: NSNumber?
    init(label: String?, seconds: NSNumber?) {
        self.label = label
        self.seconds = seconds
    }
    init?(coder: NSCoder) {
        label = coder.decodeObject(of: NSString.self, forKey: "label") as String?
        seconds = coder.decodeObject(of: NSNumber.self, forKey: "seconds")
    }
    func encode(with coder: NSCoder) {
        coder.encode(label, forKey: "label")
        coder.encode(seconds, forKey: "seconds")
    }
}

/// Written as apps subclass `NSSecureUnarchiveFromDataTransformer`.
final class RunPaceTransformer: SecureUnarchiveAttributeTransformer {
    static let name = AttributeValueTransformer.Name(rawValue: String(describing: RunPaceTransformer.self))
    override static var allowedTopLevelClasses: [AnyClass] { [RunPace.self, RunSplit.self] }

    static func register() {
        AttributeValueTransformer.setValueTransformer(RunPaceTransformer(), forName: name)
    }
}

@Suite(.serialized) struct AttributeValueTransformerTests {
    private static func model() -> ManagedObjectModel {
        let start = AttributeDescription(name: "start", type: .transformable)
        start.valueTransformerName = "TrailPointTransformer"
        let pace = AttributeDescription(name: "pace", type: .transformable)
        pace.valueTransformerName = RunPaceTransformer.name.rawValue
        let tags = AttributeDescription(name: "tags", type: .transformable)
        tags.valueTransformerName = "NSSecureUnarchiveFromData"
        return ManagedObjectModel(entities: [EntityDescription(name: "Run", properties: [
            AttributeDescription(name: "title", type: .string), start, pace, tags,
        ])])
    }

    @Test func subclassedTransformersStoreAndReadTheirValuesInAnSQLiteStore() throws {
        AttributeValueTransformer.setValueTransformer(TrailPointTransformer(), forName: "TrailPointTransformer")
        RunPaceTransformer.register()
        let folder = try TemporaryFolder()
        let url = folder.file("runs.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        let run = try context.insertNewObject(forEntityName: "Run")
        run.setValue("Dunes", forKey: "title")
        run.setValue(TrailPoint(latitude: 52.5, longitude: 13.25), forKey: "start")
        run.setValue(RunPace(secondsPerKilometre: 312.5), forKey: "pace")
        run.setValue(["sand", "hill"], forKey: "tags")
        try context.save()

        let reopened = try TestStack.context(model: Self.model(), at: url)
        let saved = try #require(try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Run")).first)
        let start = try #require(saved.value(forKey: "start") as? TrailPoint)
        #expect(start.latitude == 52.5 && start.longitude == 13.25)
        #expect((saved.value(forKey: "pace") as? RunPace)?.secondsPerKilometre == 312.5)
        #expect(saved.value(forKey: "tags") as? [String] == ["sand", "hill"])
        #expect(AttributeValueTransformer.transformer(forName: RunPaceTransformer.name) is RunPaceTransformer)
        #expect(AttributeValueTransformer.valueTransformerNames().contains("TrailPointTransformer"))
    }

    @Test func aValueTheTransformerCannotStoreFailsTheSaveNamingTheAttribute() throws {
        AttributeValueTransformer.setValueTransformer(TrailPointTransformer(), forName: "TrailPointTransformer")
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("runs.sqlite"))
        let run = try context.insertNewObject(forEntityName: "Run")
        run.setValue("not a point", forKey: "start")
        #expect { try context.save() } throws: { error in
            let text = "\(error)"
            return text.contains("Run.start") && text.contains("TrailPointTransformer") && text.contains("String")
        }
    }

    @Test func anArchiveOfAClassNotAllowedIsRefusedNamingTheClass() throws {
        let transformer = RunPaceTransformer()
        let strings = try NSKeyedArchiver.archivedData(withRootObject: "sand" as NSString, requiringSecureCoding: true)
        // Foundation's unarchiver on Linux stops the process at such a class: it never sees it.
        #expect(transformer.transformedValue(strings) == nil)
        #expect { try transformer.value(fromStored: strings, name: "RunPaceTransformer") } throws: { error in
            let text = "\(error)"
            // Named once, with the class and why.
            return text.contains("NSString") && text.contains("allowed top-level classes")
                && text.components(separatedBy: "RunPaceTransformer'").count == 2
        }
        #expect(transformer.transformedValue(Data("no archive".utf8)) == nil)
        // A damaged archive: its root refers past the end of its objects.
        let pace = try NSKeyedArchiver.archivedData(withRootObject: RunPace(secondsPerKilometre: 300), requiringSecureCoding: true)
        var damaged = try #require(try PropertyListSerialization.propertyList(from: pace, format: nil) as? [String: Any])
        var objects = try #require(damaged["$objects"] as? [Any])
        objects.removeLast()
        damaged["$objects"] = objects
        let bytes = try PropertyListSerialization.data(fromPropertyList: damaged, format: .binary, options: 0)
        #expect(transformer.transformedValue(bytes) == nil)
        let read = try #require(transformer.transformedValue(pace) as? RunPace)
        #expect(read.secondsPerKilometre == 300)
    }

    @Test func anObjectWithNilFieldsReadsBack() throws {
        let transformer = RunPaceTransformer()
        let bytes = try #require(transformer.reverseTransformedValue(RunSplit(label: nil, seconds: 95)) as? Data)
        let split = try #require(transformer.transformedValue(bytes) as? RunSplit)
        #expect(split.label == nil && split.seconds == 95)
        let named = try #require(transformer.reverseTransformedValue(RunSplit(label: "hill", seconds: nil)) as? Data)
        #expect((transformer.transformedValue(named) as? RunSplit)?.label == "hill")
    }

    @Test func aTransformerThatCannotReverseIsAnErrorWhenReading() throws {
        final class OneWay: AttributeValueTransformer {
            override class func allowsReverseTransformation() -> Bool { false }
            override func transformedValue(_ value: Any?) -> Any? { (value as? String).map { Data($0.utf8) } }
        }
        #expect(try OneWay().storedBytes(for: "x", name: "OneWay") == Data("x".utf8))
        #expect { try OneWay().value(fromStored: Data("x".utf8), name: "OneWay") } throws: { error in
            "\(error)".contains("does not allow reverse transformation")
        }
    }

    @Test func removingATransformerLeavesCoreDataNamesWithTheirDefault() throws {
        AttributeValueTransformer.setValueTransformer(RunPaceTransformer(), forName: "NSSecureUnarchiveFromDataTransformer")
        #expect(AttributeValueTransformer.transformer(forName: "NSSecureUnarchiveFromDataTransformer") != nil)
        AttributeValueTransformer.setValueTransformer(nil, forName: "NSSecureUnarchiveFromDataTransformer")
        #expect(AttributeValueTransformer.transformer(forName: "NSSecureUnarchiveFromDataTransformer") == nil)
        let archive = try NSKeyedArchiver.archivedData(withRootObject: ["a"] as NSArray, requiringSecureCoding: true)
        let decoded = try ValueTransformerRegistry.shared.transformer(named: "NSSecureUnarchiveFromDataTransformer")?.decode(archive)
        #expect(decoded as? [String] == ["a"])
        AttributeValueTransformer.setValueTransformer(nil, forName: "OnlyForThisTest")
        #expect(ValueTransformerRegistry.shared.transformer(named: "OnlyForThisTest") == nil)
    }
}

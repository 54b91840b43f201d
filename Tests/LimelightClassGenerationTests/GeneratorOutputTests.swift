import Foundation
import LimelightClassGeneration
import LimelightData
import Testing

/// The source the generator writes: types as Xcode picks them, names, inheritance, extensions for
/// category code generation, registration, options and determinism.
@Suite struct GeneratorOutputTests {
    static func fixture() throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: GeneratedClassesTests.modelURL)
    }

    static func source(_ model: ManagedObjectModel, _ options: ClassGenerationOptions = ClassGenerationOptions()) throws -> String {
        try ManagedObjectClassGenerator(options: options).source(for: model, modelName: "Generated", sourceName: "Generated.xcdatamodeld")
    }

    /// The lines of `source` without their indentation.
    static func lines(_ source: String) -> [String] {
        source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func attributesTakeTheTypesXcodePicks() throws {
        let lines = Self.lines(try Self.source(try Self.fixture()))
        for expected in [
            "final class Sample: ManagedObject {",
            "@LimelightData.Managed var int16Scalar: Int16", "@LimelightData.Managed var int32Scalar: Int32", "@LimelightData.Managed var int64Scalar: Int64",
            "@LimelightData.Managed var doubleScalar: Double", "@LimelightData.Managed var floatScalar: Float", "@LimelightData.Managed var boolScalar: Bool",
            "@LimelightData.Managed var int32Boxed: Int32?", "@LimelightData.Managed var doubleBoxed: Double?", "@LimelightData.Managed var boolBoxed: Bool?",
            "@LimelightData.Managed var text: String?", "@LimelightData.Managed var when: Date?", "@LimelightData.Managed var whenScalar: TimeInterval", "@LimelightData.Managed var blob: Data?",
            "@LimelightData.Managed var price: Decimal?", "@LimelightData.Managed var identifier: UUID?", "@LimelightData.Managed var link: URL?",
            "@LimelightData.Managed var tags: [String]?", "@LimelightData.Managed var anything: Any?",
            "@LimelightData.Managed var `default`: String?", "@LimelightData.Managed var `repeat`: Int64",
            "@LimelightData.Managed var owner: Owner?", "@LimelightData.Managed var labels: Set<Label>", "@LimelightData.Managed var steps: [Step]",
            "@LimelightData.Managed var magnitude: [String: Any]?",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
    }

    @Test func propertiesAreInNameOrderAndOnlyTheEntitysOwn() throws {
        let source = try Self.source(try Self.fixture())
        let photo = try #require(source.range(of: "final class Photo: MediaItem {"))
        let body = source[photo.upperBound...].prefix { $0 != "}" }
        #expect(body.contains("@LimelightData.Managed var pixels: Int32"))
        #expect(!body.contains("title"))
        let sample = try #require(source.range(of: "final class Sample: ManagedObject {"))
        let names = source[sample.upperBound...].prefix { $0 != "}" }.split(separator: "\n")
            .compactMap { $0.split(separator: " ").dropFirst(2).first.map { String($0.dropLast()) } }
        #expect(names == names.sorted { $0.replacingOccurrences(of: "`", with: "") < $1.replacingOccurrences(of: "`", with: "") })
        #expect(names.count == 23)
    }

    @Test func classesOthersInheritFromAreNotFinal() throws {
        let lines = Self.lines(try Self.source(try Self.fixture()))
        // `MyApp.MediaItem` loses its module, as Xcode's `.Recipe` does.
        #expect(lines.contains("class MediaItem: ManagedObject {"))
        #expect(lines.contains("final class Photo: MediaItem {"))
        // GeneratedHidden has no class: Visible inherits from ManagedObject and declares its property.
        #expect(lines.contains("final class Visible: ManagedObject {"))
        #expect(lines.contains("@LimelightData.Managed var secret: String?"))
        #expect(!lines.contains { $0.contains("class GeneratedHidden") })
    }

    @Test func categoryCodeGenerationWritesAnExtensionOfTheApplicationsClass() throws {
        let source = try Self.source(try Self.fixture())
        #expect(source.contains("""
            extension Owner {
                var favorites: [Step] {
                    get { value(forKey: "favorites", as: [Step].self) }
                    set { setValue(newValue, forKey: "favorites") }
                }
            """))
        #expect(source.contains("get { value(forKey: \"samples\", as: Set<Sample>.self) }"))
        #expect(!source.contains("class Owner:"))
    }

    @Test func toManyRelationshipsGetXcodesAccessors() throws {
        let lines = Self.lines(try Self.source(try Self.fixture()))
        for expected in [
            "extension Sample {", "func addToLabels(_ value: Label) {", "func removeFromLabels(_ value: Label) {",
            "func addToLabels(_ values: Set<Label>) {", "func removeFromLabels(_ values: Set<Label>) {",
            "mutableSetValue(forKey: \"labels\").insert(value)",
            "func addToSteps(_ values: [Step]) {", "func insertIntoSteps(_ value: Step, at index: Int) {",
            "func removeFromSteps(at index: Int) {", "func replaceSteps(at index: Int, with value: Step) {",
            "func addToFavorites(_ value: Step) {", "func addToSamples(_ value: Sample) {",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
        // Only ordered relationships have positions.
        #expect(!lines.contains { $0.contains("insertIntoLabels") })
    }

    @Test func registrationCoversEveryGeneratedClassAndCategory() throws {
        let source = try Self.source(try Self.fixture())
        #expect(source.contains("""
            enum GeneratedModelClasses {
                static func register(in registry: ManagedObjectClassRegistry = .shared) {
                    registry.register(Label.self, forEntityName: "GeneratedLabel")
            """))
        for (className, entity) in [("Sample", "GeneratedSample"), ("Owner", "GeneratedOwner"), ("Photo", "GeneratedPhoto"), ("MediaItem", "GeneratedMedia"), ("Visible", "GeneratedVisible")] {
            #expect(source.contains("registry.register(\(className).self, forEntityName: \"\(entity)\")"))
        }
        #expect(!source.contains("GeneratedHidden\")"))
    }

    @Test func headerNamesTheModelAndOutputIsDeterministic() throws {
        let first = try Self.source(try Self.fixture())
        #expect(first.hasPrefix("// Generated from Generated.xcdatamodeld by Limelight's class generator."))
        // The same model with its entities in another order writes the same source.
        let model = try Self.fixture()
        let shuffled = ManagedObjectModel(entities: model.entities.reversed().map { $0 })
        #expect(try Self.source(shuffled) == first)
        #expect(try Self.source(try Self.fixture()) == first)
    }

    @Test func publicAccessAndAllEntities() throws {
        let source = try Self.source(try Self.fixture(), ClassGenerationOptions(accessLevel: .public, generatesAllEntities: true))
        let lines = Self.lines(source)
        #expect(lines.contains("public final class Sample: ManagedObject {"))
        #expect(lines.contains("@LimelightData.Managed public var text: String?"))
        #expect(lines.contains("public var name: String? {"))
        #expect(lines.contains("public enum GeneratedModelClasses {"))
        #expect(lines.contains("public static func register(in registry: ManagedObjectClassRegistry = .shared) {"))
        // The Manual/None entity gets a class named after it, which Visible now inherits from.
        #expect(lines.contains("public class GeneratedHidden: ManagedObject {"))
        #expect(lines.contains("public final class Visible: GeneratedHidden {"))
        #expect(lines.filter { $0.contains("var secret:") }.count == 1)
    }

    @Test func aClassNamedLikeAFoundationTypeIsNotConfusedWithIt() throws {
        let event = EntityDescription(name: "Date", properties: [AttributeDescription(name: "start", type: .date)])
        event.classCodeGeneration = .classDefinition
        let lines = Self.lines(try Self.source(ManagedObjectModel(entities: [event])))
        #expect(lines.contains("final class Date: ManagedObject {"))
        #expect(lines.contains("@LimelightData.Managed var start: Foundation.Date?"))
    }

    @Test func transformableTypes() throws {
        func declared(_ customClassName: String?) throws -> String? {
            let value = AttributeDescription(name: "value", type: .transformable)
            value.customClassName = customClassName
            let entity = EntityDescription(name: "Holder", properties: [value])
            entity.classCodeGeneration = .classDefinition
            return Self.lines(try Self.source(ManagedObjectModel(entities: [entity]))).first { $0.hasPrefix("@LimelightData.Managed var value:") }
        }
        #expect(try declared("[String: Int]") == "@LimelightData.Managed var value: [String: Int]?")
        #expect(try declared("Swift.Set<Foundation.URL>") == "@LimelightData.Managed var value: Swift.Set<Foundation.URL>?")
        #expect(try declared("NSArray") == "@LimelightData.Managed var value: [Any]?")
        // A leading dot is Xcode's "current product module".
        #expect(try declared(".Resolution") == "@LimelightData.Managed var value: Resolution?")
        #expect(try declared(".NSURL") == "@LimelightData.Managed var value: URL?")
        #expect(try declared("NSObject<NSCoding> *") == "@LimelightData.Managed var value: Any?")
        #expect(try declared("id") == "@LimelightData.Managed var value: Any?")
        #expect(try declared(nil) == "@LimelightData.Managed var value: Any?")
    }

    @Test func badNamesAreRefusedNamingTheEntity() throws {
        func refusal(_ entities: [EntityDescription]) -> ClassGenerationError? {
            for entity in entities where entity.classCodeGeneration == .manual { entity.classCodeGeneration = .classDefinition }
            do {
                _ = try Self.source(ManagedObjectModel(entities: entities))
                return nil
            } catch {
                return error as? ClassGenerationError
            }
        }
        let dashed = EntityDescription(name: "Dashed")
        dashed.managedObjectClassName = "My-Class"
        #expect(refusal([dashed])?.entityName == "Dashed")
        #expect(refusal([dashed])?.description.contains("'My-Class' is not a Swift identifier") == true)

        let keyword = EntityDescription(name: "Keyword")
        keyword.managedObjectClassName = "class"
        #expect(refusal([keyword])?.entityName == "Keyword")

        let nested = EntityDescription(name: "Nested")
        nested.managedObjectClassName = "App.Outer.Inner"
        #expect(refusal([nested])?.entityName == "Nested")

        let first = EntityDescription(name: "First"), second = EntityDescription(name: "Second")
        first.managedObjectClassName = "Shared"
        second.managedObjectClassName = "MyApp.Shared"
        let shared = try #require(refusal([first, second]))
        #expect(shared.entityName == "Second")
        #expect(shared.description.contains("also the class of entity First"))

        // An entity written by hand may not have the class another one generates.
        let generated = EntityDescription(name: "Generated"), manual = EntityDescription(name: "Manual")
        generated.managedObjectClassName = "Kept"
        generated.classCodeGeneration = .classDefinition
        manual.managedObjectClassName = "Kept"
        do {
            _ = try Self.source(ManagedObjectModel(entities: [generated, manual]))
            Issue.record("two entities with class Kept were generated")
        } catch let error as ClassGenerationError {
            #expect(error.entityName == "Manual")
        }

        let clash = EntityDescription(name: "Clash", properties: [AttributeDescription(name: "entity", type: .string)])
        #expect(refusal([clash])?.description == "entity Clash: property 'entity' has the name of ManagedObject's own entity; rename it in the model")

        let framework = EntityDescription(name: "Framework")
        framework.managedObjectClassName = "ManagedObject"
        // `ManagedObject` as the class means no class of its own: the entity's name is used.
        #expect(refusal([framework]) == nil)
        let registry = EntityDescription(name: "GeneratedModelClasses")
        #expect(refusal([registry])?.entityName == "GeneratedModelClasses")
    }

    @Test func modelNamesComeFromTheFiles() {
        let name = ManagedObjectClassGenerator.modelName(for:)
        #expect(name(URL(fileURLWithPath: "/m/Cookbook.xcdatamodeld")) == "Cookbook")
        #expect(name(URL(fileURLWithPath: "/m/Cookbook.xcdatamodeld/Cookbook 2.xcdatamodel")) == "Cookbook")
        #expect(name(URL(fileURLWithPath: "/m/Cookbook.xcdatamodeld/Cookbook 2.xcdatamodel/contents")) == "Cookbook")
        #expect(name(URL(fileURLWithPath: "/m/Solo.xcdatamodel/contents")) == "Solo")
        #expect(name(URL(fileURLWithPath: "/m/App.momd/App 3.mom")) == "App")
        let generator = ManagedObjectClassGenerator()
        #expect(generator.registrationTypeName(forModelNamed: "my-model") == "MyModelModelClasses")
        #expect(generator.registrationTypeName(forModelNamed: "2024 data") == "Model2024DataModelClasses")
    }

    @Test func codeGenerationSurvivesReadingAndWritingTheModel() throws {
        let model = try Self.fixture()
        #expect(model.entitiesByName["GeneratedSample"]?.classCodeGeneration == .classDefinition)
        #expect(model.entitiesByName["GeneratedOwner"]?.classCodeGeneration == .category)
        #expect(model.entitiesByName["GeneratedHidden"]?.classCodeGeneration == .manual)
        let folder = try GeneratedClassesTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let contents = folder.appendingPathComponent("contents")
        try model.xmlData().write(to: contents)
        let again = try ManagedObjectModel(contentsOf: contents)
        #expect(again.entitiesByName["GeneratedOwner"]?.classCodeGeneration == .category)
        #expect(try Self.source(again) == Self.source(model))
        let hidden = try #require(again.entitiesByName["GeneratedHidden"])
        hidden.classCodeGeneration = .category
        #expect(hidden.extraXMLAttributes["codeGenerationType"] == "category")
        hidden.classCodeGeneration = .manual
        #expect(hidden.extraXMLAttributes["codeGenerationType"] == nil)
    }
}

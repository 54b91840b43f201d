import Foundation
import Testing
@testable import LimelightData

/// Xcode models read, written back and read again with nothing lost; bad model files are refused
/// with the file and element named.
@Suite struct ModelXMLTests {
    static var fixtures: URL { CoreDataFixtureTests.fixtures.deletingLastPathComponent() }

    static func summary(_ model: ManagedObjectModel) -> [String] {
        var lines: [String] = []
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            lines.append("E \(entity.name) parent=\(entity.superentityName ?? "") abstract=\(entity.isAbstract) class=\(entity.managedObjectClassName ?? "") id=\(entity.renamingIdentifier ?? "") info=\(entity.userInfo.sorted { $0.key < $1.key }) unique=\(entity.uniquenessConstraints) extra=\(entity.extraXMLAttributes.sorted { $0.key < $1.key })")
            for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) {
                var line = "  P \(property.name) opt=\(property.isOptional) tr=\(property.isTransient) spot=\(property.isIndexedBySpotlight) truth=\(property.isStoredInExternalRecord) id=\(property.renamingIdentifier ?? "") info=\(property.userInfo.sorted { $0.key < $1.key }) extra=\(property.extraXMLAttributes.sorted { $0.key < $1.key })"
                if let a = property as? AttributeDescription {
                    line += " A \(a.attributeType.rawValue) default=\(a.defaultValue.map { "\($0)" } ?? "-") min=\(a.minValue ?? .nan) max=\(a.maxValue ?? .nan) re=\(a.regularExpression ?? "") vt=\(a.valueTransformerName ?? "")"
                }
                if let r = property as? RelationshipDescription {
                    line += " R \(r.destinationEntityName) inv=\(r.inverseName ?? "") many=\(r.isToMany) min=\(r.minCount) max=\(r.maxCount) rule=\(r.deleteRule.rawValue) ordered=\(r.isOrdered)"
                }
                if let f = property as? FetchedPropertyDescription { line += " F \(f.destinationEntityName) \(f.predicateFormat ?? "")" }
                lines.append(line)
            }
        }
        lines.append("templates \(model.fetchRequestTemplates.keys.sorted()) configurations \(model.configurations.sorted { $0.key < $1.key })")
        return lines
    }

    @Test(arguments: ["SampleModel/SampleModel.xcdatamodeld", "EveryType/model.xcdatamodeld"])
    func everyVersionRoundTrips(_ bundle: String) throws {
        let url = Self.fixtures.appendingPathComponent(bundle)
        let versions = try ManagedObjectModel.versions(inBundle: url)
        #expect(versions.count >= 2)
        for version in versions {
            let model = try ManagedObjectModel(contentsOf: version.url)
            let again = try ManagedObjectModel(xmlData: try model.xmlData(), source: "round trip of \(version.name)")
            #expect(Self.summary(again) == Self.summary(model), "\(version.name)")
        }
    }

    @Test func fixtureDetailsAreRead() throws {
        let sample = try ManagedObjectModel(contentsOf: Self.fixtures.appendingPathComponent("SampleModel/SampleModel.xcdatamodeld"))
        let v1 = try ManagedObjectModel(contentsOf: Self.fixtures.appendingPathComponent("SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"))
        #expect(sample.entities.count >= 4)
        let car = try #require(v1.entity(named: "Car"))
        #expect(car.subentities.map(\.name) == ["SportCar"])
        #expect(car.uniquenessConstraints == [["numberPlate"]])
        #expect((car.property(named: "currentDrivingSpeed") as? AttributeDescription)?.defaultValue as? Int64 == 0)
        #expect(car.property(named: "currentDrivingSpeed")?.isTransient == true)
        #expect((car.property(named: "owner") as? RelationshipDescription)?.inverseRelationship?.name == "cars")
        let v3 = try ManagedObjectModel(contentsOf: Self.fixtures.appendingPathComponent("SampleModel/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel"))
        #expect(v3.entity(named: "LuxuryCar")?.renamingIdentifier == "ExpensiveSportCar")
        let every = try ManagedObjectModel(contentsOf: Self.fixtures.appendingPathComponent("EveryType/model.xcdatamodeld"))
        let types = Set(every.entities.flatMap { $0.ownProperties.compactMap { ($0 as? AttributeDescription)?.attributeType } })
        #expect(types.isSuperset(of: [.integer16, .integer32, .integer64, .decimal, .double, .float, .string, .boolean, .date, .binaryData, .transformable]))
        #expect(every.entities.contains { $0.ownProperties.contains { $0 is RelationshipDescription && $0.isIndexedBySpotlight } })
        #expect(every.entities.contains { $0.ownProperties.contains { ($0 as? RelationshipDescription)?.isOrdered == true } })
        #expect(!every.fetchRequestTemplates.isEmpty)
        #expect(!every.configurations.isEmpty)
    }

    @Test func badModelsNameTheFileAndElement() throws {
        let cases: [(String, String)] = [
            ("<model><entity name=\"A\"><attribute name=\"x\"/></entity></model>", "missing attributeType"),
            ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Integer 128\"/></entity></model>", "unknown attributeType 'Integer 128'"),
            ("<model><entity name=\"A\"><relationship name=\"r\" destinationEntity=\"Nope\"/></entity></model>", "destination entity 'Nope' does not exist"),
            ("<model><entity name=\"A\">", "malformed model XML"),
            ("<notamodel/>", "not <model>"),
            ("<model><entity name=\"A\" parentEntity=\"B\"/></model>", "parent entity 'B' does not exist"),
        ]
        for (xml, message) in cases {
            #expect { try ManagedObjectModel(xmlData: Data(xml.utf8), source: "bad.xcdatamodel/contents") } throws: { error in
                let text = "\(error)"
                return text.contains(message) && text.contains("bad.xcdatamodel/contents")
            }
        }
        #expect(throws: ModelError.self) { try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "/nonexistent/x.xcdatamodeld")) }
    }

    /// Attribute values with tabs and line ends (a userInfo note, a predicate written over lines)
    /// come back as they were: the writer escapes what a reader would turn into spaces.
    @Test func lineEndsInAttributeValuesSurviveAWriteAndRead() throws {
        let attribute = AttributeDescription(name: "note", type: .string)
        attribute.userInfo = ["help": "first line\n\tsecond line\r\nthird"]
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Memo", properties: [attribute])])
        let read = try ManagedObjectModel(xmlData: try model.xmlData(), source: "memo")
        #expect(read.entitiesByName["Memo"]?.propertiesByName["note"]?.userInfo["help"] == "first line\n\tsecond line\r\nthird")
    }

    /// An attribute turned from Boolean into a number in Xcode's editor keeps "NO" or "YES" as its
    /// default; Core Data opens such models, and so does this reader, with 0 and 1, writing the
    /// text back as it was.
    @Test func booleanDefaultsLeftOnNumbersReadAsZeroAndOne() throws {
        let xml = """
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0"><entity name="Upload" syncable="YES">
        <attribute name="kind" attributeType="Integer 16" defaultValueString="NO" usesScalarValueType="YES"/>
        <attribute name="retries" attributeType="Integer 64" defaultValueString="YES" usesScalarValueType="YES"/>
        <attribute name="weight" optional="YES" attributeType="Double" defaultValueString="NO" usesScalarValueType="YES"/>
        </entity></model>
        """
        let model = try ManagedObjectModel(xmlData: Data(xml.utf8), source: "uploads.xcdatamodel/contents")
        let upload = try #require(model.entitiesByName["Upload"])
        #expect(upload.attributesByName["kind"]?.defaultValue as? Int16 == 0)
        #expect(upload.attributesByName["retries"]?.defaultValue as? Int64 == 1)
        #expect(upload.attributesByName["weight"]?.defaultValue as? Double == 0)
        let written = String(decoding: try model.xmlData(), as: UTF8.self)
        #expect(written.contains("defaultValueString=\"NO\""))
        let context = try TestStack.context(model: model, at: nil)
        let object = try context.insertNewObject(forEntityName: "Upload")
        #expect(object.value(forKey: "kind") as? Int16 == 0)
        #expect(object.value(forKey: "retries") as? Int64 == 1)
        try context.save()
        #expect(throws: ModelError.self) {
            try ManagedObjectModel(xmlData: Data(xml.replacingOccurrences(of: "\"YES\" usesScalar", with: "\"many\" usesScalar").utf8), source: "bad")
        }
    }
}

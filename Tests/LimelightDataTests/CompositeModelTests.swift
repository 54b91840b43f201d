import Foundation
import Testing
@testable import LimelightData

/// Composite attributes in models: read from Xcode's XML (model-level `<composite>` definitions,
/// nested), written back, built in code, hashed, and refused with the file, entity and element
/// named when they cannot work.
@Suite struct CompositeModelTests {
    @Test func xcodeXMLWithNestedCompositesIsReadAndWrittenBack() throws {
        let model = try QuakeModel.make()
        let quake = try #require(model.entitiesByName["Quake"])
        let magnitude = try #require(quake.attributesByName["magnitude"] as? CompositeAttributeDescription)
        #expect(magnitude.attributeType == .composite && magnitude.attributeType.code == 2100)
        #expect(magnitude.compositeName == "Magnitude")
        #expect(magnitude.elements.map(\.name) == ["richter", "scale"])
        #expect(magnitude.elementsByName["richter"]?.minValue == 0 && magnitude.elementsByName["richter"]?.maxValue == 10)
        #expect(magnitude.elementsByName["scale"]?.defaultValue as? String == "ML")
        let location = try #require(quake.attributesByName["location"] as? CompositeAttributeDescription)
        let coordinate = try #require(location.elementsByName["coordinate"] as? CompositeAttributeDescription)
        #expect(coordinate.compositeName == "Coordinate" && coordinate.elements.map(\.name) == ["latitude", "longitude"])
        #expect(location.element(atPath: ["coordinate", "latitude"])?.attributeType == .double)
        #expect(location.leafElements.map { $0.path.joined(separator: ".") } == ["place", "coordinate.latitude", "coordinate.longitude"])

        // Written back: the attributes name their definitions, which follow the entities.
        let written = String(decoding: try model.xmlData(), as: UTF8.self)
        #expect(written.contains(#"<attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>"#))
        #expect(written.contains("""
                <composite name="Location">
                    <attribute name="place" optional="YES" attributeType="String"/>
                    <attribute name="coordinate" optional="YES" attributeType="Composite" composite="Coordinate"/>
                </composite>
            """))
        #expect(written.contains(#"<attribute name="richter" optional="YES" attributeType="Double" maxValueString="10" minValueString="0" usesScalarValueType="NO"/>"#))
        #expect(written.components(separatedBy: "<composite name=").count == 4)
        // Read again, the same model, and written again, the same text.
        let again = try ManagedObjectModel(xmlData: Data(written.utf8), source: "again")
        #expect(String(decoding: try again.xmlData(), as: UTF8.self) == written)
        #expect(again.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect((again.entitiesByName["Quake"]?.attributesByName["location"] as? CompositeAttributeDescription)?
            .element(atPath: ["coordinate", "longitude"])?.attributeType == .double)
    }

    @Test func compositesBuiltInCodeGetDefinitionsOfTheirOwn() throws {
        let first = CompositeAttributeDescription(name: "size", elements: [AttributeDescription(name: "width", type: .double)])
        let second = CompositeAttributeDescription(name: "size", elements: [AttributeDescription(name: "height", type: .integer32)])
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Box", properties: [first]), EntityDescription(name: "Crate", properties: [second])])
        try model.resolve()
        // Two different composites under one name: the second is numbered.
        let written = String(decoding: try model.xmlData(), as: UTF8.self)
        #expect(written.contains(#"composite="Size"/>"#) && written.contains(#"composite="Size2"/>"#))
        let read = try ManagedObjectModel(xmlData: Data(written.utf8), source: "boxes")
        #expect((read.entitiesByName["Crate"]?.attributesByName["size"] as? CompositeAttributeDescription)?.elements.map(\.name) == ["height"])
        // A definition no attribute names is kept as it was.
        let unused = QuakeModel.xml.replacingOccurrences(of: "</model>", with: """
            <composite name="Spare"><attribute name="x" optional="YES" attributeType="String"/></composite>
            </model>
            """)
        let kept = String(decoding: try ManagedObjectModel(xmlData: Data(unused.utf8), source: "spare").xmlData(), as: UTF8.self)
        #expect(kept.contains(#"<composite name="Spare">"#) && kept.contains(#"<attribute name="x" optional="YES" attributeType="String"/>"#))
        // `<compositeAttribute>` is read as `<composite>`.
        let synonym = QuakeModel.xml.replacingOccurrences(of: "<composite name=\"Magnitude\">", with: "<compositeAttribute name=\"Magnitude\">")
            .replacingOccurrences(of: "</composite>\n</model>", with: "</compositeAttribute>\n</model>")
        let other = try ManagedObjectModel(xmlData: Data(synonym.utf8), source: "synonym")
        #expect((other.entitiesByName["Quake"]?.attributesByName["magnitude"] as? CompositeAttributeDescription)?.elements.count == 2)
    }

    @Test func versionHashesFollowTheElements() throws {
        func hash(_ edit: (String) -> String) throws -> Data? {
            try ManagedObjectModel(xmlData: Data(edit(QuakeModel.xml).utf8), source: "hash").entityVersionHashesByName["Quake"]
        }
        let base = try hash { $0 }
        let added = try hash { $0.replacingOccurrences(of: #"<attribute name="scale""#, with: #"<attribute name="depth" optional="YES" attributeType="Double"/><attribute name="scale""#) }
        let retyped = try hash { $0.replacingOccurrences(of: #"name="latitude" optional="YES" attributeType="Double""#, with: #"name="latitude" optional="YES" attributeType="Float""#) }
        let renamed = try hash { $0.replacingOccurrences(of: #"name="richter""#, with: #"name="moment""#) }
        let required = try hash { $0.replacingOccurrences(of: #"name="scale" optional="YES""#, with: #"name="scale""#) }
        // What takes no part in a hash (a default value) changes nothing.
        let defaulted = try hash { $0.replacingOccurrences(of: #"defaultValueString="ML""#, with: #"defaultValueString="Mw""#) }
        #expect(Set([base, added, retyped, renamed, required]).count == 5)
        #expect(defaulted == base)
        // Report does not change with Quake's composites.
        let report = try ManagedObjectModel(xmlData: Data(QuakeModel.xml.utf8), source: "a").entityVersionHashesByName["Report"]
        let renamedModel = try ManagedObjectModel(xmlData: Data(QuakeModel.xml.replacingOccurrences(of: #"name="richter""#, with: #"name="moment""#).utf8),
                                                  source: "b")
        #expect(report != nil && report == renamedModel.entityVersionHashesByName["Report"])
    }

    /// The model's error, as text, for the XML `edit` makes of the quake model.
    static func error(_ edit: (String) -> String) -> String? {
        do {
            _ = try ManagedObjectModel(xmlData: Data(edit(QuakeModel.xml).utf8), source: "Quakes.xcdatamodel")
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func badCompositesInModelFilesAreRefusedNamingFileEntityAndComposite() throws {
        let missingDefinition = Self.error { $0.replacingOccurrences(of: #" composite="Magnitude""#, with: "") }
        #expect(missingDefinition?.contains("Quakes.xcdatamodel: entity 'Quake'") == true)
        #expect(missingDefinition?.contains("attribute 'magnitude': a Composite attribute needs composite=") == true)

        let unknown = Self.error { $0.replacingOccurrences(of: #"composite="Magnitude"/>"#, with: #"composite="Size"/>"#) }
        #expect(unknown?.contains("Quakes.xcdatamodel: entity 'Quake'") == true)
        #expect(unknown?.contains("the composite 'Size' is not defined in the model") == true)

        let cycle = Self.error {
            $0.replacingOccurrences(of: #"<attribute name="longitude" optional="YES" attributeType="Double" usesScalarValueType="NO"/>"#,
                                    with: #"<attribute name="around" optional="YES" attributeType="Composite" composite="Location"/>"#)
        }
        #expect(cycle?.contains("Quakes.xcdatamodel: entity 'Quake'") == true)
        #expect(cycle?.contains("the composite 'Location' contains itself (Location → Coordinate → Location)") == true)

        let relationship = Self.error {
            $0.replacingOccurrences(of: #"<attribute name="place" optional="YES" attributeType="String"/>"#,
                                    with: #"<relationship name="place" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Report"/>"#)
        }
        #expect(relationship?.contains("Quakes.xcdatamodel: entity 'Quake'") == true)
        #expect(relationship?.contains("a <relationship> cannot be an element of the composite 'Location'") == true)

        let empty = Self.error { $0.replacingOccurrences(of: #"<composite name="Coordinate">"#, with: #"<composite name="Coordinate"></composite><composite name="Unused">"#) }
        #expect(empty?.contains("the composite 'Coordinate' has no elements") == true)

        let twice = Self.error { $0.replacingOccurrences(of: "</model>", with: #"<composite name="Magnitude"><attribute name="x" attributeType="String"/></composite></model>"#) }
        #expect(twice?.contains("Quakes.xcdatamodel: the composite 'Magnitude' is defined twice") == true)

        let badElement = Self.error { $0.replacingOccurrences(of: #"name="scale" optional="YES" attributeType="String""#, with: #"name="scale" optional="YES" attributeType="ObjectID""#) }
        #expect(badElement?.contains("Quake.magnitude.scale: a composite cannot hold an element of type ObjectID") == true)
        #expect(badElement?.contains("Quakes.xcdatamodel") == true)

        // An element whose flattened column is an attribute's column too.
        let collision = Self.error { $0.replacingOccurrences(of: #"<attribute name="code" optional="YES" attributeType="String"/>"#,
                                                            with: #"<attribute name="magnitude_richter" optional="YES" attributeType="String"/>"#) }
        #expect(collision?.contains("the element magnitude.richter would be stored in the column ZMAGNITUDE_RICHTER, which magnitude_richter uses too") == true)
    }

    @Test func badCompositesBuiltInCodeAreRefusedWhenTheModelIsResolved() throws {
        func problem(_ attribute: AttributeDescription, constraint: [String]? = nil) -> String? {
            let entity = EntityDescription(name: "Shape", properties: [attribute])
            if let constraint { entity.uniquenessConstraints = [constraint] }
            do {
                try ManagedObjectModel(entities: [entity]).resolve()
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(problem(CompositeAttributeDescription(name: "size"))?.contains("Shape.size: a composite attribute needs at least one element") == true)
        #expect(problem(AttributeDescription(name: "size", type: .composite))?.contains("Shape.size: a Composite attribute must be a CompositeAttributeDescription") == true)
        let twice = CompositeAttributeDescription(name: "size", elements: [AttributeDescription(name: "w", type: .double), AttributeDescription(name: "w", type: .float)])
        #expect(problem(twice)?.contains("Shape.size: element 'w' is declared twice") == true)
        let external = AttributeDescription(name: "thumbnail", type: .binaryData)
        external.allowsExternalBinaryDataStorage = true
        let nested = CompositeAttributeDescription(name: "look", elements: [external])
        #expect(problem(CompositeAttributeDescription(name: "size", elements: [nested]))?
            .contains("Shape.size.look.thumbnail: a composite cannot hold binary data stored outside the store") == true)
        let selfish = CompositeAttributeDescription(name: "loop", elements: [AttributeDescription(name: "x", type: .double)])
        selfish.elements.append(selfish)
        defer { selfish.elements = [] }
        #expect(problem(selfish)?.contains("Shape.loop.loop: the composite contains itself") == true)
        let looping = ManagedObjectModel(entities: [EntityDescription(name: "Ring", properties: [selfish])])
        #expect { try looping.xmlData() } throws: { "\($0)".contains("Ring.loop: the composite contains itself") }
        let size = CompositeAttributeDescription(name: "size", elements: [AttributeDescription(name: "w", type: .double)])
        #expect(problem(size, constraint: ["size.w"])?.contains("a uniqueness constraint over the composite attribute 'size.w' is not supported") == true)
    }

    @Test func compiledModelsWithCompositesAreRefusedAndStoresKeepNoModelOfThem() throws {
        // A store made with composites keeps no model cache: how Core Data archives a composite
        // is unknown, and reading the store's model says why there is none.
        let folder = try TemporaryFolder()
        let url = folder.file("quakes.sqlite")
        let model = try QuakeModel.make()
        _ = try TestStack.context(model: model, at: url)
        #expect { try ManagedObjectModel(cachedInStoreAt: url) } throws: { "\($0)".contains("Z_MODELCACHE is empty") }
        // An archive holding an attribute of Core Data's composite type is refused, naming it.
        let archive = try CompiledModelWriter.archive(of: model)
        #expect { try ManagedObjectModel(archiveData: archive, source: "Quakes.mom") } throws: {
            "\($0)".contains("Quakes.mom") && "\($0)".contains("composite attributes are not supported in compiled models")
        }
    }
}

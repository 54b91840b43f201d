import Foundation
import Testing
@testable import LimelightData

/// Fetch request templates and fetched properties, read from model XML and used against a store;
/// and model files written back attribute for attribute.
@Suite struct TemplatesAndFetchedPropertiesTests {
    static let xml = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Writer" representedClassName="Writer" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Novel" inverseName="writer" inverseEntity="Novel"/>
            <fetchedProperty name="recentBooks" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Novel" predicateString="writer == $FETCH_SOURCE AND year &gt; 2000"/>
            </fetchedProperty>
        </entity>
        <entity name="Novel" representedClassName="Novel" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="year" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="writer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Writer" inverseName="books" inverseEntity="Writer"/>
        </entity>
        <fetchRequest name="NovelsAfter" entity="Novel" predicateString="year &gt;= $YEAR AND title BEGINSWITH[c] $PREFIX" fetchLimit="2"/>
        <fetchRequest name="Everything" entity="Novel"/>
    </model>
    """

    func context(_ url: URL) throws -> ManagedObjectContext {
        try TestStack.context(model: try ManagedObjectModel(xmlData: Data(Self.xml.utf8), source: "Writers.xcdatamodel"), at: url)
    }

    @Test func templatesTakeTheirVariablesAndSettings() throws {
        let folder = try TemporaryFolder()
        let context = try context(folder.file("writers.sqlite"))
        for (title, year) in [("Sea", 1999), ("Salt", 2004), ("Sand", 2010), ("Silt", 2020), ("Moss", 2021)] {
            let novel = try context.insertNewObject(forEntityName: "Novel")
            novel.setValue(title, forKey: "title")
            novel.setValue(Int32(year), forKey: "year")
        }
        try context.save()
        let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)

        let request = try model.fetchRequestFromTemplate(withName: "NovelsAfter", substitutionVariables: ["YEAR": 2000, "PREFIX": "s"])
        #expect(request.fetchLimit == 2)
        request.sortDescriptors = [QuerySortDescriptor(key: "year")]
        #expect(try context.fetch(request).compactMap { ($0 as? ManagedObject)?.value(forKey: "title") as? String } == ["Salt", "Sand"])
        #expect(try context.count(for: model.fetchRequestFromTemplate(withName: "Everything", substitutionVariables: [:])) == 5)
        #expect(model.fetchRequestTemplate(forName: "NovelsAfter")?.predicate?.predicateFormat.contains("$YEAR") == true)
        #expect(model.fetchRequestTemplate(forName: "Nope") == nil)

        #expect { try model.fetchRequestFromTemplate(withName: "NovelsAfter", substitutionVariables: ["YEAR": 2000]) } throws: { error in
            "\(error)".contains("$PREFIX") && "\(error)".contains("NovelsAfter")
        }
        #expect { try model.fetchRequestFromTemplate(withName: "Nope", substitutionVariables: [:]) } throws: { error in
            "\(error)".contains("Nope") && "\(error)".contains("NovelsAfter")
        }
    }

    @Test func fetchedPropertiesAreKeptUntilTheObjectIsRefreshed() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("fetched.sqlite")
        let context = try context(url)
        let writer = try context.insertNewObject(forEntityName: "Writer")
        writer.setValue("Ursula", forKey: "name")
        for (title, year) in [("Early", 1969), ("Late", 2008)] {
            let novel = try context.insertNewObject(forEntityName: "Novel")
            novel.setValue(title, forKey: "title")
            novel.setValue(Int32(year), forKey: "year")
            novel.setValue(writer, forKey: "writer")
        }
        try context.save()
        let titles = { (writer: ManagedObject) in
            Set((writer.value(forKey: "recentBooks") as? [ManagedObject] ?? []).compactMap { $0.value(forKey: "title") as? String })
        }
        #expect(titles(writer) == ["Late"])

        // Another context adds a recent novel; the fetched property changes only on refresh.
        let other = try self.context(url)
        let otherWriter = try other.existingObject(with: try #require(
            other.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: writer.objectID.uriRepresentation())))
        let newer = try other.insertNewObject(forEntityName: "Novel")
        newer.setValue("Newer", forKey: "title")
        newer.setValue(Int32(2018), forKey: "year")
        newer.setValue(otherWriter, forKey: "writer")
        try other.save()
        #expect(titles(writer) == ["Late"])
        context.refresh(writer, mergeChanges: false)
        #expect(titles(writer) == ["Late", "Newer"])
    }

    /// Every element and attribute of an Xcode model file, keyed by its path of names. (The XML
    /// reader itself is checked against Foundation's in `XMLReaderTests`.)
    static func inventory(_ data: Data) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        func walk(_ element: XMLTreeElement, _ path: String) {
            let key = "\(path)/\(element.name)[\(element[attribute: "name"] ?? element[attribute: "key"] ?? "")]"
            result[key] = element.attributeDictionary
            for child in element.children { walk(child, key) }
        }
        walk(try XMLReader.parse(data), "")
        return result
    }

    @Test(arguments: ["SampleModel/SampleModel.xcdatamodeld", "EveryType/model.xcdatamodeld"])
    func writingBackKeepsEveryElementAndAttribute(_ bundle: String) throws {
        for version in try ManagedObjectModel.versions(inBundle: ModelXMLTests.fixtures.appendingPathComponent(bundle)) {
            let contents = version.url.appendingPathComponent("contents")
            let original = try Self.inventory(try Data(contentsOf: contents))
            let written = try ManagedObjectModel(contentsOf: version.url).xmlData()
            let again = try Self.inventory(written)
            for (path, attributes) in original {
                #expect(again[path] == attributes, "\(version.name): \(path)")
            }
            #expect(try ManagedObjectModel(xmlData: written, source: "written").xmlData() == written, "\(version.name): writing is stable")
        }
    }
}

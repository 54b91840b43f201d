import Foundation
import Testing
@testable import LimelightData

/// Model files in the forms Xcode has written over the years, with the constructs applications
/// use, read and turned into working SQLite stores.
@Suite struct RealWorldModelTests {
    /// A model in the Xcode 4–7 form: `syncable`, `name=""` on the model, entities without a class
    /// or without properties, relationships without inverses, keys that are SQL words.
    static let olderForm = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model name="" userDefinedModelVersionIdentifier="" type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="2061" systemVersion="12D78" minimumToolsVersion="Xcode 4.3" macOSVersion="Automatic" iOSVersion="Automatic">
        <entity name="Ledger" syncable="YES">
            <attribute name="from" optional="YES" attributeType="String" syncable="YES"/>
            <attribute name="order" optional="YES" attributeType="Integer 16" defaultValueString="0" syncable="YES"/>
            <attribute name="rate" optional="YES" attributeType="Decimal" defaultValueString="0.0" syncable="YES"/>
            <attribute name="extras" optional="YES" attributeType="Transformable" syncable="YES"/>
            <relationship name="entries" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="Transaction" syncable="YES"/>
            <relationship name="latest" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Transaction" syncable="YES"/>
            <userInfo>
                <entry key="note with.dots" value="says &quot;hello&quot;"/>
            </userInfo>
        </entity>
        <entity name="Transaction" representedClassName="Transaction" syncable="YES">
            <attribute name="amount" attributeType="Double" defaultValueString="0.0" syncable="YES"/>
            <relationship name="link" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Marker" inverseName="link" inverseEntity="Marker" syncable="YES"/>
        </entity>
        <entity name="Marker" representedClassName="Marker" syncable="YES">
            <relationship name="link" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Transaction" inverseName="link" inverseEntity="Transaction" syncable="YES"/>
        </entity>
        <entity name="Empty" representedClassName="Empty" syncable="YES"/>
        <fetchRequest name="byAmount" entity="Transaction" predicateString="amount &gt; $MINIMUM"/>
        <configuration name="Books">
            <memberEntity name="Ledger"/>
            <memberEntity name="Transaction"/>
        </configuration>
    </model>
    """

    /// A model in the Xcode 14–16 form: no `syncable`, UUID and URI attributes, dates with a
    /// `defaultDateTimeInterval`, constraints, multi-column indexes, hash modifiers, renaming
    /// identifiers, a derived count and an ordered many-to-many of an entity with itself.
    static let newerForm = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23E224" minimumToolsVersion="Automatic" sourceLanguage="Swift" usedWithCloudKit="YES" userDefinedModelVersionIdentifier="">
        <entity name="Folder" representedClassName="Folder" syncable="YES" codeGenerationType="class">
            <attribute name="uid" attributeType="UUID" usesScalarValueType="NO"/>
            <attribute name="title" attributeType="String" defaultValueString="" versionHashModifier="2"/>
            <attribute name="created" attributeType="Date" defaultDateTimeInterval="631152000" usesScalarValueType="NO"/>
            <attribute name="home" optional="YES" attributeType="URI"/>
            <attribute name="icon" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="place" optional="YES" attributeType="Transformable" valueTransformerName="" customClassName="CLLocation"/>
            <attribute name="kindRaw" optional="YES" attributeType="String" elementID="kind"/>
            <attribute name="pinnedCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pinned.@count" usesScalarValueType="YES"/>
            <relationship name="pinned" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" destinationEntity="Folder" inverseName="pinnedBy" inverseEntity="Folder"/>
            <relationship name="pinnedBy" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Folder" inverseName="pinned" inverseEntity="Folder" elementID="pinnedIn"/>
            <fetchIndex name="byTitle">
                <fetchIndexElement property="title" type="Binary" order="ascending"/>
                <fetchIndexElement property="created" type="Binary" order="descending"/>
            </fetchIndex>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="uid"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
    </model>
    """

    @Test func olderFormMakesAWorkingStore() throws {
        let model = try ManagedObjectModel(xmlData: Data(Self.olderForm.utf8), source: "Older.xcdatamodel")
        let ledgerEntity = try #require(model.entitiesByName["Ledger"])
        #expect(ledgerEntity.userInfo["note with.dots"] == "says \"hello\"")
        #expect(model.configurations["Books"] == ["Ledger", "Transaction"])
        #expect(model.fetchRequestTemplates["byAmount"] != nil)
        let folder = try TemporaryFolder()
        let url = folder.file("older.sqlite")
        let context = try TestStack.context(model: model, at: url)
        let ledger = try context.insertNewObject(forEntityName: "Ledger")
        ledger.setValue("bank", forKey: "from")
        ledger.setValue(["a": 1] as NSDictionary, forKey: "extras")
        let entries = try (0..<3).map { index -> ManagedObject in
            let entry = try context.insertNewObject(forEntityName: "Transaction")
            entry.setValue(Double(index) * 10, forKey: "amount")
            return entry
        }
        ledger.setValue(NSOrderedSet(array: entries.reversed()), forKey: "entries")
        ledger.setValue(entries[1], forKey: "latest")
        // An unordered to-many takes an NSSet, as Core Data's generated accessors pass it.
        let marker2 = try context.insertNewObject(forEntityName: "Marker")
        marker2.setValue(NSSet(array: [entries[1], entries[2]]), forKey: "link")
        let marker = try context.insertNewObject(forEntityName: "Marker")
        entries[0].setValue(marker, forKey: "link")
        _ = try context.insertNewObject(forEntityName: "Empty")
        try context.save()

        let reopened = try TestStack.context(model: try ManagedObjectModel(xmlData: Data(Self.olderForm.utf8), source: "Older.xcdatamodel"), at: url)
        let read = try #require(try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Ledger")).first)
        #expect(read.value(forKey: "from") as? String == "bank")
        #expect(read.value(forKey: "order") as? Int16 == 0)
        #expect(read.value(forKey: "rate") as? Decimal == 0)
        let amounts = (read.value(forKey: "entries") as? [ManagedObject])?.compactMap { $0.value(forKey: "amount") as? Double }
        #expect(amounts == [20, 10, 0])
        #expect((read.value(forKey: "latest") as? ManagedObject)?.value(forKey: "amount") as? Double == 10)
        #expect(try reopened.count(for: FetchRequest<ManagedObject>(entityName: "Empty")) == 1)
        #expect(try reopened.count(for: FetchRequest<ManagedObject>(entityName: "Marker", predicate: try QueryPredicate(format: "link.@count == 1"))) == 1)
        #expect(try reopened.count(for: FetchRequest<ManagedObject>(entityName: "Marker", predicate: try QueryPredicate(format: "link.@count == 2"))) == 1)
        #expect(try reopened.count(for: FetchRequest<ManagedObject>(entityName: "Ledger", predicate: try QueryPredicate(format: "#order == 0 AND from == 'bank'"))) == 1)
    }

    @Test func newerFormMakesAWorkingStore() throws {
        let model = try ManagedObjectModel(xmlData: Data(Self.newerForm.utf8), source: "Newer.xcdatamodel")
        let entity = try #require(model.entitiesByName["Folder"])
        #expect(entity.uniquenessConstraints == [["uid"]])
        #expect(entity.fetchIndexes.first?.elements.map(\.ascending) == [true, false])
        #expect(entity.attributesByName["kindRaw"]?.renamingIdentifier == "kind")
        let folder = try TemporaryFolder()
        let url = folder.file("newer.sqlite")
        let context = try TestStack.context(model: model, at: url)
        let folders = try (0..<3).map { index -> ManagedObject in
            let object = try context.insertNewObject(forEntityName: "Folder")
            object.setValue(UUID(), forKey: "uid")
            object.setValue("F\(index)", forKey: "title")
            return object
        }
        folders[0].setValue(URL(string: "https://example.com/f0"), forKey: "home")
        folders[0].setValue(NSOrderedSet(array: [folders[2], folders[1]]), forKey: "pinned")
        try context.save()

        let reopened = try TestStack.context(model: try ManagedObjectModel(xmlData: Data(Self.newerForm.utf8), source: "Newer.xcdatamodel"), at: url)
        let first = try #require(try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Folder", predicate: try QueryPredicate(format: "title == 'F0'"))).first)
        #expect(first.value(forKey: "home") as? URL == URL(string: "https://example.com/f0"))
        #expect(first.value(forKey: "pinnedCount") as? Int64 == 2)
        let pinned = (first.value(forKey: "pinned") as? [ManagedObject])?.compactMap { $0.value(forKey: "title") as? String }
        #expect(pinned == ["F2", "F1"])
        #expect(try reopened.count(for: FetchRequest<ManagedObject>(entityName: "Folder", predicate: try QueryPredicate(format: "ANY pinnedBy.title == 'F0'"))) == 2)
    }

    @Test func aDateDefaultIsReadFromDefaultDateTimeInterval() throws {
        let model = try ManagedObjectModel(xmlData: Data(Self.newerForm.utf8), source: "Newer.xcdatamodel")
        let created = try #require(model.entitiesByName["Folder"]?.attributesByName["created"])
        let newYear = Date(timeIntervalSinceReferenceDate: 631_152_000)
        #expect(created.defaultValue as? Date == newYear)
        let context = try TestStack.context(model: model, at: nil)
        let object = try context.insertNewObject(forEntityName: "Folder")
        #expect(object.value(forKey: "created") as? Date == newYear)
        // Written back where Xcode writes it, and read again as the same date.
        let xml = String(decoding: try model.xmlData(), as: UTF8.self)
        #expect(xml.contains("defaultDateTimeInterval=\"631152000\""))
        #expect(!xml.contains("defaultValueString=\"631152000"))
        let again = try ManagedObjectModel(xmlData: Data(xml.utf8), source: "again")
        #expect(again.entitiesByName["Folder"]?.attributesByName["created"]?.defaultValue as? Date == newYear)
        // Nonsense is an error naming the attribute.
        let bad = Self.newerForm.replacingOccurrences(of: "defaultDateTimeInterval=\"631152000\"", with: "defaultDateTimeInterval=\"soon\"")
        #expect { try ManagedObjectModel(xmlData: Data(bad.utf8), source: "Bad.xcdatamodel") } throws: {
            "\($0)".contains("attribute 'created': defaultDateTimeInterval 'soon'") && "\($0)".contains("Bad.xcdatamodel")
        }
    }

    @Test func unsupportedFormsAreRefusedSayingWhatAndWhere() throws {
        let composite = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22222" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Boat" representedClassName="Boat" syncable="YES">
                <attribute name="colors" optional="YES" attributeType="Composite" composite="Colors"/>
            </entity>
            <composite name="Colors">
                <attribute name="hull" optional="YES" attributeType="String"/>
            </composite>
        </model>
        """
        // A model Xcode 15 wrote with a composite attribute loads, the composite with its elements.
        let model = try ManagedObjectModel(xmlData: Data(composite.utf8), source: "Boats.xcdatamodel")
        let colors = try #require(model.entitiesByName["Boat"]?.attributesByName["colors"] as? CompositeAttributeDescription)
        #expect(colors.attributeType == .composite)
        #expect(colors.compositeName == "Colors")
        #expect(colors.elements.map(\.name) == ["hull"])
        #expect(colors.elements.first?.attributeType == .string)
        // A model Xcode 3 wrote: binary archives, no contents XML.
        let folder = try TemporaryFolder()
        let old = folder.file("Old.xcdatamodel")
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        try Data("bplist00".utf8).write(to: old.appendingPathComponent("elements"))
        #expect { try ManagedObjectModel(contentsOf: old) } throws: {
            "\($0)".contains("Xcode 3 format") && "\($0)".contains("Old.xcdatamodel")
        }
    }
}

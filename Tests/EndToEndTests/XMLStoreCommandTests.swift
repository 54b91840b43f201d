import Foundation
import Testing

/// `limelight fetch` run as a program on a Core Data XML store: objects, computed rows, and the
/// model the file does not keep.
@Suite struct XMLStoreCommandTests {
    let harness: Harness
    let store: URL
    let model: URL

    init() throws {
        harness = try Harness()
        store = harness.home.appendingPathComponent("Staff.xml")
        try Self.storeText.write(to: store, atomically: true, encoding: .utf8)
        model = harness.home.appendingPathComponent("Staff.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Self.modelText.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
    }

    func rows(_ arguments: [String]) throws -> [[String: Any]] {
        let output = try harness.run("limelight", ["fetch", store.path, "--model", model.path, "--entity", "Employee", "--json"] + arguments)
        return try output.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func objectsAndComputedRowsComeFromTheFile() throws {
        let paid = try rows(["--where", "salary > 95"])
        #expect(paid.count == 1)
        #expect(paid.first?["name"] as? String == "Alice")
        let grouped = try rows(["--properties", "department.name,count:*", "--group-by", "department.name", "--sort", "department.name"])
        let counts = grouped.map { "\($0["department.name"] as? String ?? "none")=\($0["count_all"] as? Int ?? -1)" }
        #expect(Set(counts) == ["Engineering=2", "none=1"], "\(grouped)")
        // The file is only read.
        #expect(try String(contentsOf: store, encoding: .utf8) == Self.storeText)
    }

    @Test func withoutAModelTheCommandSaysWhatIsMissing() throws {
        let result = try harness.run("limelight", ["fetch", store.path, "--entity", "Employee"], allowFailure: true)
        #expect(result.status != 0)
        #expect(result.stderr.contains("an XML store keeps no model of its own; give it with --model"), "\(result.stderr)")
        let model = try harness.run("limelight", ["model", store.path], allowFailure: true)
        #expect(model.status != 0)
        #expect(model.stderr.contains("is a Core Data XML store, which keeps no model of its own"), "\(model.stderr)")
    }

    static let modelText = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Department" representedClassName="Department" syncable="YES" codeGenerationType="class">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="employees" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Employee" inverseName="department" inverseEntity="Employee"/>
        </entity>
        <entity name="Employee" representedClassName="Employee" syncable="YES" codeGenerationType="class">
            <attribute name="hireDate" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="salary" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Department" inverseName="employees" inverseEntity="Department"/>
        </entity>
    </model>
    """

    static let storeText = """
    <?xml version="1.0"?>
    <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

    <database>
        <databaseInfo>
            <version>134481920</version>
            <UUID>5C1F3A52-2D0B-4C55-9B8E-0D3A4F1E6B77</UUID>
            <nextObjectID>106</nextObjectID>
            <metadata></metadata>
        </databaseInfo>
        <object type="DEPARTMENT" id="z104">
            <attribute name="name" type="string">Engineering</attribute>
            <relationship name="employees" type="0/0" destination="EMPLOYEE" idrefs="z102 z105"></relationship>
        </object>
        <object type="EMPLOYEE" id="z102">
            <attribute name="name" type="string">Alice</attribute>
            <attribute name="salary" type="int32">100</attribute>
            <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z104"></relationship>
        </object>
        <object type="EMPLOYEE" id="z103">
            <attribute name="name" type="string">Bob</attribute>
            <attribute name="salary" type="int32">90</attribute>
            <relationship name="department" type="1/1" destination="DEPARTMENT"></relationship>
        </object>
        <object type="EMPLOYEE" id="z105">
            <attribute name="name" type="string">Carol</attribute>
            <attribute name="salary" type="int32">80</attribute>
            <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z104"></relationship>
        </object>
    </database>

    """
}

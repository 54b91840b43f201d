import Foundation
import Testing

/// `limelight model` on a model Core Data loads although Xcode warns about it.
@Suite struct ModelCommandWarningTests {
    @Test func aRelationshipWithoutInverseIsAWarningNotAFailure() throws {
        let harness = try Harness()
        let bundle = harness.home.appendingPathComponent("Shop.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Order" representedClassName="Order" syncable="YES">
                <attribute name="code" attributeType="String"/>
                <attribute name="placed" attributeType="Date" defaultDateTimeInterval="0" usesScalarValueType="NO"/>
                <relationship name="lines" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Line"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="code"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Line" representedClassName="Line" syncable="YES">
                <attribute name="quantity" attributeType="Integer 32" defaultValueString="1" usesScalarValueType="YES"/>
            </entity>
        </model>
        """
        try Data(xml.utf8).write(to: bundle.appendingPathComponent("contents"))
        let result = try harness.run("limelight", ["model", bundle.path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("warning: Order.lines has no inverse relationship"))
        #expect(result.stdout.contains("  unique: code"))
        #expect(result.stdout.contains("  placed: Date = 2001-01-01T00:00:00Z"))
        #expect(result.stdout.contains("  quantity: Integer 32 = 1"))
        #expect(result.stdout.contains("model OK: 2 entities"))
    }

    @Test func aCompositeAttributeIsListedWithItsElements() throws {
        let harness = try Harness()
        let fixture = ModelSwiftCommandTests.fixture
        let result = try harness.run("limelight", ["model", fixture.path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("  magnitude: Composite {richter: Double, scale: String} [optional]"))
    }
}

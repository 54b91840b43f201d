import Foundation
import Testing
@testable import LimelightData

/// A `<configuration>`'s own attributes (Xcode's `usedWithCloudKit`) survive reading and writing
/// the model, as the writer promises for everything it reads.
struct ConfigurationAttributesTests {
    @Test func usedWithCloudKitIsWrittenBack() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22757" systemVersion="23E224">
            <entity name="Shelf" representedClassName="Shelf" syncable="YES">
                <attribute name="label" optional="YES" attributeType="String"/>
            </entity>
            <configuration name="Synced" usedWithCloudKit="YES">
                <memberEntity name="Shelf"/>
            </configuration>
            <configuration name="Nothing"/>
        </model>
        """
        let model = try ManagedObjectModel(xmlData: Data(xml.utf8), source: "Shelves")
        #expect(model.configurations["Synced"] == ["Shelf"])
        #expect(model.configurationXMLAttributes["Synced"] == ["usedWithCloudKit": "YES"])
        let written = String(decoding: try model.xmlData(), as: UTF8.self)
        #expect(written.contains(#"<configuration name="Synced" usedWithCloudKit="YES">"#))
        let reread = try ManagedObjectModel(xmlData: Data(written.utf8), source: "Shelves again")
        #expect(reread.configurationXMLAttributes == model.configurationXMLAttributes)
        #expect(reread.configurations == model.configurations)
    }
}

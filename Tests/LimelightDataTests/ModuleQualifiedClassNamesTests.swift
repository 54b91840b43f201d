import Foundation
import Testing
@testable import LimelightData

final class Crate: ManagedObject {
    @Managed var label: String?
}

final class Pallet: ManagedObject {
    @Managed var weight: Int32
}

/// Xcode writes a class of the app's own module as `.Crate` ("Current Product Module") or with the
/// module's name (`Depot.Pallet`); a class registered by its Swift name is found for either, as
/// Core Data finds it, and fetched, inserted and related objects are of that class.
@Suite struct ModuleQualifiedClassNamesTests {
    static let xml = """
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
    <entity name="Crate" representedClassName=".Crate" syncable="YES">
        <attribute name="label" optional="YES" attributeType="String"/>
        <relationship name="pallet" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Pallet" inverseName="crates" inverseEntity="Pallet"/>
    </entity>
    <entity name="Pallet" representedClassName="Depot.Pallet" syncable="YES">
        <attribute name="weight" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
        <relationship name="crates" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Crate" inverseName="pallet" inverseEntity="Crate"/>
    </entity>
    </model>
    """

    @Test func classesRegisteredByTheirSwiftNamesAreFound() throws {
        ManagedObjectClassRegistry.shared.register(Crate.self)
        ManagedObjectClassRegistry.shared.register(Pallet.self)
        let folder = try TemporaryFolder()
        let model = try ManagedObjectModel(xmlData: Data(Self.xml.utf8), source: "Depot.xcdatamodel/contents")
        let context = try TestStack.context(model: model, at: folder.file("depot.sqlite"))
        let crate = try #require(try EntityDescription.insertNewObject(forEntityName: "Crate", into: context) as? Crate)
        let pallet = try #require(try context.insertNewObject(forEntityName: "Pallet") as? Pallet)
        crate.label = "fragile"
        pallet.weight = 40
        crate.setValue(pallet, forKey: "pallet")
        try context.save()
        context.reset()
        let fetched = try #require(try context.fetch(FetchRequest<Crate>(entityName: "Crate")).first)
        #expect(fetched.label == "fragile")
        #expect((fetched.value(forKey: "pallet") as? Pallet)?.weight == 40)
        #expect(try Crate.entity(inModelOf: context).name == "Crate")
    }
}

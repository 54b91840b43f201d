import Foundation
import Testing
@testable import LimelightData

/// Names a store writes into its SQL as they are (entities, properties, fetch indexes, the key
/// paths of constraints and compound indexes) are refused, naming them, when they are not
/// identifiers: a model read from outside cannot put statements of its own into a new store.
struct ModelNameTests {
    static func xml(entity: String = "Note", attribute: String = "title", index: String = "byTitle", constraint: String = "title") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="\(entity)" representedClassName="Note" syncable="YES">
                <attribute name="\(attribute)" optional="YES" attributeType="String"/>
                <fetchIndex name="\(index)">
                    <fetchIndexElement property="\(attribute)" type="Binary" order="ascending"/>
                </fetchIndex>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="\(constraint)"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
        </model>
        """
    }

    static func read(_ xml: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(xmlData: Data(xml.utf8), source: "Notes.xcdatamodel")
    }

    @Test func anAttributeNameCarryingSQLIsRefusedAndNoStatementOfItsRuns() throws {
        let folder = try TemporaryFolder()
        let planted = folder.file("planted.sqlite")
        let name = "title VARCHAR); ATTACH DATABASE '\(planted.path)' AS p; CREATE TABLE p.t (a"
        do {
            _ = try Self.read(Self.xml(attribute: name, constraint: "title"))
            Issue.record("a model with the attribute name \(name) was read")
        } catch let error as ModelError {
            #expect(error.reason.contains("property name '\(name)'") && error.location.contains("Note"), "\(error)")
        }
        // The same name in a model made in code: refused when a coordinator takes the model, before
        // any store is made from it.
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: [AttributeDescription(name: name, type: .string)])])
        #expect(throws: ModelError.self) { _ = try PersistentStoreCoordinator(managedObjectModel: model) }
        #expect(!FileManager.default.fileExists(atPath: planted.path))
    }

    @Test func entityIndexAndConstraintNamesAreIdentifiers() throws {
        #expect(throws: ModelError.self) { _ = try Self.read(Self.xml(entity: "Note (draft)")) }
        #expect(throws: ModelError.self) { _ = try Self.read(Self.xml(entity: "2Notes")) }
        #expect(throws: ModelError.self) { _ = try Self.read(Self.xml(index: "by title")) }
        #expect(throws: ModelError.self) { _ = try Self.read(Self.xml(constraint: "title, 1) --")) }
        // Identifiers as Xcode writes them, letters beyond ASCII among them, make a working store.
        let model = try Self.read(Self.xml(entity: "Notiz_2", attribute: "überschrift", index: "byÜberschrift", constraint: "überschrift"))
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: model, at: folder.file("notes.sqlite"))
        try context.insertNewObject(forEntityName: "Notiz_2").setValue("Grüße", forKey: "überschrift")
        try context.save()
        #expect(try context.fetch(FetchRequest<ManagedObject>(entityName: "Notiz_2")).count == 1)
    }
}

import Foundation
import Testing
@testable import LimelightData

/// Derived attributes as Xcode writes them (`derived="YES" derivationExpression="…"`): computed at
/// every save, kept current when what they read changes, written to real SQLite stores.
struct DerivedAttributeTests {
    static let contents = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Order" representedClassName="Order" syncable="YES">
            <attribute name="customer" optional="YES" attributeType="String"/>
            <attribute name="customerKey" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(customer)"/>
            <attribute name="shout" optional="YES" attributeType="String" derived="YES" derivationExpression="uppercase:(customer)"/>
            <attribute name="itemCount" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES" derived="YES" derivationExpression="items.@count"/>
            <attribute name="total" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES" derived="YES" derivationExpression="items.@sum.price"/>
            <attribute name="touched" optional="YES" attributeType="Date" usesScalarValueType="NO" derived="YES" derivationExpression="now()"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Item" inverseName="order" inverseEntity="Item"/>
        </entity>
        <entity name="Item" representedClassName="Item" syncable="YES">
            <attribute name="price" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
            <attribute name="orderedBy" optional="YES" attributeType="String" derived="YES" derivationExpression="order.customer"/>
            <relationship name="order" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Order" inverseName="items" inverseEntity="Order"/>
        </entity>
    </model>
    """

    func model() throws -> ManagedObjectModel { try ManagedObjectModel(xmlData: Data(Self.contents.utf8), source: "orders.xcdatamodel") }

    func item(_ price: Double, in order: ManagedObject, _ context: ManagedObjectContext) throws -> ManagedObject {
        let item = try context.insertNewObject(forEntityName: "Item")
        item.setValue(price, forKey: "price")
        item.setValue(order, forKey: "order")
        return item
    }

    @Test func derivedValuesAreComputedAtSaveAndFollowWhatTheyRead() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("orders.sqlite")
        let model = try model()
        let attribute = try #require(model.entity(named: "Order")?.property(named: "total") as? AttributeDescription)
        #expect(attribute.isDerived && attribute.derivationExpression == .keyPath("items.@sum.price"))
        let context = try TestStack.context(model: model, at: url)
        let order = try context.insertNewObject(forEntityName: "Order")
        order.setValue("Zoë Smith", forKey: "customer")
        let first = try item(2.5, in: order, context)
        let second = try item(4, in: order, context)
        try context.save()
        #expect(order.value(forKey: "customerKey") as? String == "zoe smith")
        #expect(order.value(forKey: "shout") as? String == "ZOË SMITH")
        #expect(order.value(forKey: "itemCount") as? Int64 == 2)
        #expect(order.value(forKey: "total") as? Double == 6.5)
        #expect(first.value(forKey: "orderedBy") as? String == "Zoë Smith")
        let firstTouch = try #require(order.value(forKey: "touched") as? Date)

        // An item's price changes: its order's total follows, though the order itself was not edited.
        second.setValue(10.0, forKey: "price")
        try context.save()
        #expect(order.value(forKey: "total") as? Double == 12.5)
        #expect(try #require(order.value(forKey: "touched") as? Date) >= firstTouch)
        // The customer's name changes: the items that read it follow.
        order.setValue("Zoe Smith-Jones", forKey: "customer")
        try context.save()
        #expect(second.value(forKey: "orderedBy") as? String == "Zoe Smith-Jones")
        // An item leaves.
        context.delete(first)
        try context.save()
        #expect(order.value(forKey: "itemCount") as? Int64 == 1)

        // What was saved is in the store, for any reader.
        let reader = try TestStack.context(model: try self.model(), at: url)
        let stored = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Order")).first)
        #expect(stored.value(forKey: "total") as? Double == 10)
        #expect(stored.value(forKey: "itemCount") as? Int64 == 1)
        #expect(stored.value(forKey: "customerKey") as? String == "zoe smith-jones")
        let request = FetchRequest<ManagedObject>(entityName: "Order")
        request.predicate = try QueryPredicate(format: "customerKey BEGINSWITH %@", "zoe")
        #expect(try reader.count(for: request) == 1)
    }

    @Test func theModelFileKeepsItsDerivations() throws {
        let model = try model()
        let written = try ManagedObjectModel(xmlData: try model.xmlData(), source: "orders.xcdatamodel")
        let text = String(decoding: try model.xmlData(), as: UTF8.self)
        #expect(text.contains(#"derivationExpression="items.@sum.price""#) && text.contains(#"derived="YES""#))
        #expect(text.contains(#"derivationExpression="canonical:(customer)""#))
        for name in ["customerKey", "shout", "itemCount", "total", "touched"] {
            let before = (model.entity(named: "Order")?.property(named: name) as? AttributeDescription)?.derivationExpression
            let after = (written.entity(named: "Order")?.property(named: name) as? AttributeDescription)?.derivationExpression
            #expect(before != nil && before == after, "\(name)")
        }
    }

    @Test func badDerivationsSayWhatAndWhere() throws {
        let broken = Self.contents.replacingOccurrences(of: "items.@sum.price", with: "items.@sum(")
        let error = try #require(throws: ModelError.self) { try ManagedObjectModel(xmlData: Data(broken.utf8), source: "orders.xcdatamodel") }
        #expect("\(error)".contains("total") && "\(error)".contains("items.@sum("))

        // An expression that parses but reads nothing the entity has fails the save, naming it.
        let unknown = Self.contents.replacingOccurrences(of: "uppercase:(customer)", with: "uppercase:(nickname)")
        let context = try TestStack.context(model: try ManagedObjectModel(xmlData: Data(unknown.utf8), source: "orders.xcdatamodel"), at: nil)
        let order = try context.insertNewObject(forEntityName: "Order")
        order.setValue("Ann", forKey: "customer")
        let failure = try #require(throws: ValidationError.self) { try context.save() }
        #expect("\(failure)".contains("shout"))
    }
}

import Foundation
@testable import LimelightData

/// The shop of `Tests/Fixtures/xcmapping`: two model versions in an `.xcdatamodeld` and the Xcode
/// mapping model between them.
enum ShopVersions {
    static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/xcmapping")
    }
    static var shop: URL { fixtures.appendingPathComponent("Shop") }
    static var mappingModel: URL { shop.appendingPathComponent("ShopToShop2.xcmappingmodel") }
    static var mappingXML: URL { mappingModel.appendingPathComponent("xcmapping.xml") }

    static func version1() throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: shop.appendingPathComponent("Shop.xcdatamodeld/Shop.xcdatamodel"))
    }

    static func version2() throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: shop.appendingPathComponent("Shop.xcdatamodeld/Shop 2.xcdatamodel"))
    }

    /// A version 1 store: Ann (two orders) and Bob (one), tea (tagged hot and drink), water (free,
    /// tagged drink) and a coupon.
    static func makeStore(at url: URL) throws {
        let context = try TestStack.context(model: version1(), at: url)
        func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
            let object = try context.insertNewObject(forEntityName: entity)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
        let ann = try insert("Customer", ["name": "Ann", "email": "ann@example.com"])
        let bob = try insert("Customer", ["name": "Bob"])
        for (number, customer) in [(1, ann), (2, ann), (3, bob)] { _ = try insert("Order", ["number": Int32(number), "customer": customer]) }
        let hot = try insert("Tag", ["label": "hot"]), drink = try insert("Tag", ["label": "drink"])
        _ = try insert("Product", ["name": "tea", "priceInCents": Int64(250), "tags": Set([hot, drink])])
        _ = try insert("Product", ["name": "water", "priceInCents": Int64(0), "tags": Set([drink])])
        _ = try insert("Coupon", ["code": "WELCOME"])
        try context.save()
    }

    /// The migrated store, one line per object, read with version 2.
    static func summary(_ url: URL) throws -> [String] {
        let context = try TestStack.context(model: version2(), at: url)
        func all(_ entity: String, by key: String) throws -> [ManagedObject] {
            try context.fetch(FetchRequest<ManagedObject>(entityName: entity, sortDescriptors: [QuerySortDescriptor(key: key, ascending: true)]))
        }
        func names(_ value: Any?, _ key: String) -> String {
            ((value as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: key).map { "\($0)" } }.sorted().joined(separator: ",")
        }
        var lines: [String] = []
        for client in try all("Client", by: "name") {
            lines.append("client \(client.value(forKey: "name") ?? "-") \(client.value(forKey: "email") ?? "-") orders \(names(client.value(forKey: "orders"), "number"))")
        }
        for order in try all("Order", by: "number") {
            lines.append("order \(order.value(forKey: "number") ?? "-") of \((order.value(forKey: "client") as? ManagedObject)?.value(forKey: "name") ?? "-")")
        }
        for product in try all("Product", by: "name") {
            lines.append("product \(product.value(forKey: "name") ?? "-") \(product.value(forKey: "price") ?? "-") tags \(names(product.value(forKey: "tags"), "label"))")
        }
        for tag in try all("Tag", by: "label") {
            lines.append("tag \(tag.value(forKey: "label") ?? "-") products \(names(tag.value(forKey: "products"), "name"))")
        }
        lines.append("reviews \(try context.count(for: FetchRequest<ManagedObject>(entityName: "Review")))")
        return lines
    }
}

/// A policy the shop's mapping can name: labels become upper case.
final class TagPolicy: EntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        for tag in manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]) {
            tag.setValue((tag.value(forKey: "label") as? String)?.uppercased(), forKey: "label")
        }
    }
}

import Foundation
import Testing
@testable import LimelightData

/// An app's own validation errors, as Core Data apps declare them.
enum ListingError: Error, Equatable {
    case missingTitle
    case priceBelowCost(String)
}

/// Checks of its own in every validation method a Core Data app overrides.
final class Listing: ManagedObject {
    @Managed var title: String?
    @Managed var price: Double
    @Managed var cost: Double

    override func validateForInsert() throws {
        try super.validateForInsert()
        try checkPrice()
    }

    override func validateForUpdate() throws {
        try super.validateForUpdate()
        try checkPrice()
    }

    override func validateValue(_ value: Any?, forKey key: String) throws {
        try super.validateValue(value, forKey: key)
        if key == "title", (value as? String)?.isEmpty ?? true { throw ListingError.missingTitle }
    }

    private func checkPrice() throws {
        if price < cost { throw ListingError.priceBelowCost(title ?? "") }
    }
}

/// Two failures at once, combined as Core Data's documentation shows: one error of code 1560
/// with the others under `NSDetailedErrors`.
final class GiftBundle: ManagedObject {
    override func validateForInsert() throws {
        let first = NSError(domain: "Shop", code: 1, userInfo: [NSLocalizedDescriptionKey: "no items"])
        let second = NSError(domain: "Shop", code: 2, userInfo: [NSLocalizedDescriptionKey: "no price"])
        throw NSError(domain: NSCocoaErrorDomain, code: PersistenceErrorCode.validationMultipleErrors,
                      userInfo: [ValidationError.detailedErrorsKey: [first, second]])
    }
}

@Suite struct TypedValidationErrorTests {
    private static func context(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let listing = EntityDescription(name: "Listing", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "price", type: .double, isOptional: false, defaultValue: 0.0),
            AttributeDescription(name: "cost", type: .double, isOptional: false, defaultValue: 0.0),
            AttributeDescription(name: "code", type: .string, isOptional: false),
        ])
        listing.managedObjectClassName = "Listing"
        let bundle = EntityDescription(name: "GiftBundle", properties: [AttributeDescription(name: "name", type: .string)])
        bundle.managedObjectClassName = "GiftBundle"
        ManagedObjectClassRegistry.shared.register(Listing.self, as: "Listing")
        ManagedObjectClassRegistry.shared.register(GiftBundle.self, as: "GiftBundle")
        return try TestStack.context(model: ManagedObjectModel(entities: [listing, bundle]), at: folder.file("shop.sqlite"))
    }

    private static func listing(_ context: ManagedObjectContext, title: String, price: Double, cost: Double) throws -> Listing {
        let listing = try #require(try context.insertNewObject(forEntityName: "Listing") as? Listing)
        listing.title = title
        listing.price = price
        listing.cost = cost
        listing.setValue("L-\(title)", forKey: "code")
        return listing
    }

    @Test func theOneErrorAnOverrideThrowsIsWhatTheSaveThrows() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        _ = try Self.listing(context, title: "Lamp", price: 5, cost: 9)
        #expect(throws: ListingError.priceBelowCost("Lamp")) { try context.save() }
        // Nothing was written, and the object is still there to correct.
        context.reset()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Listing")) == 0)
    }

    @Test func aValidateValueOverridesErrorIsThrownAsItIs() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        let saved = try Self.listing(context, title: "Desk", price: 20, cost: 10)
        try context.save()
        saved.title = ""
        do {
            try context.save()
            Issue.record("the save went through")
        } catch ListingError.missingTitle {
            // Matched by type, as Core Data code catches its own errors.
        }
    }

    @Test func severalFailuresKeepEachErrorTypedUnderDetailedErrors() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        _ = try Self.listing(context, title: "Chair", price: 1, cost: 2)
        let untitled = try Self.listing(context, title: "", price: 3, cost: 1)
        untitled.setValue(nil, forKey: "code")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.failures.count == 3)
        let typed = error.errors.compactMap { $0 as? ListingError }
        #expect(Set(typed.map { "\($0)" }) == ["priceBelowCost(\"Chair\")", "missingTitle"])
        // The model's rule (a required code) stays a failure naming its key.
        #expect(error.errors.contains { ($0 as? ValidationFailure)?.key == "code" })
        let bridged = error as NSError
        #expect(bridged.code == PersistenceErrorCode.validationMultipleErrors)
        let detailed = try #require(bridged.userInfo[ValidationError.detailedErrorsKey] as? [NSError])
        #expect(detailed.count == 3)
        #expect(detailed.filter { $0.code == PersistenceErrorCode.managedObjectValidation }.count == 1)
    }

    @Test func anOverridesMultipleErrorsErrorIsTakenApart() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        _ = try context.insertNewObject(forEntityName: "GiftBundle")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        let codes = error.errors.map { ($0 as NSError).domain + "/\(($0 as NSError).code)" }
        #expect(codes == ["Shop/1", "Shop/2"])
        let detailed = try #require((error as NSError).userInfo[ValidationError.detailedErrorsKey] as? [NSError])
        #expect(detailed.map(\.localizedDescription) == ["no items", "no price"])
    }

    @Test func aChildContextsSaveThrowsTheSameError() throws {
        let folder = try TemporaryFolder()
        let parent = try Self.context(folder)
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            _ = try Self.listing(child, title: "Rug", price: 1, cost: 4)
            #expect(throws: ListingError.priceBelowCost("Rug")) { try child.save() }
        }
        #expect(!parent.hasChanges)
    }
}

/// Fills in its required identifier in `validateForInsert()` before calling `super`, as Core
/// Data apps do for values they make at the last moment.
final class Contact: ManagedObject {
    @Managed var userID: String?
    @Managed var name: String?

    override func validateForInsert() throws {
        if userID == nil { userID = "generated-\(name ?? "")" }
        try super.validateForInsert()
    }
}

@Suite struct ValidationHookOrderTests {
    @Test func aValueAnInsertHookSetsBeforeSuperIsCheckedAndSaved() throws {
        let contact = EntityDescription(name: "Contact", properties: [
            AttributeDescription(name: "userID", type: .string, isOptional: false),
            AttributeDescription(name: "name", type: .string),
        ])
        contact.managedObjectClassName = "Contact"
        ManagedObjectClassRegistry.shared.register(Contact.self, as: "Contact")
        let model = ManagedObjectModel(entities: [contact])
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: model, at: folder.file("contacts.sqlite"))
        let made = try #require(try context.insertNewObject(forEntityName: "Contact") as? Contact)
        made.name = "Ada"
        try context.save()
        let reopened = try TestStack.context(model: model, at: folder.file("contacts.sqlite"))
        let saved = try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Contact"))
        #expect(saved.map { $0.value(forKey: "userID") as? String } == ["generated-Ada"])
    }
}

import Foundation
import Testing
@testable import LimelightData

/// Errors bridged to `NSError` carry Core Data's domain and codes, which code written for Core
/// Data tests (`(error as NSError).code == NSManagedObjectMergeError` before retrying a save).
@Suite struct ErrorCodeBridgingTests {
    /// Tags unique by name, with a required colour.
    static func model() -> ManagedObjectModel {
        let name = AttributeDescription(name: "name", type: .string)
        let colour = AttributeDescription(name: "colour", type: .string)
        name.isOptional = false
        colour.isOptional = false
        let tag = EntityDescription(name: "Tag", properties: [name, colour])
        tag.uniquenessConstraints = [["name"]]
        return ManagedObjectModel(entities: [tag])
    }

    static func bridged(_ body: () throws -> Void) -> NSError? {
        do { try body() } catch { return error as NSError }
        return nil
    }

    @Test func aLostRaceAndABrokenConstraintCarryCoreDatasMergeCodes() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("tags.sqlite")
        let model = Self.model()
        let first = try TestStack.context(model: model, at: url)
        let second = try TestStack.context(model: model, at: url)
        let id = try first.performAndWait { () throws -> ManagedObjectID in
            let tag = try first.insertNewObject(forEntityName: "Tag")
            tag.setValue("red", forKey: "name")
            tag.setValue("#f00", forKey: "colour")
            try first.save()
            return tag.objectID
        }
        try second.performAndWait { try second.existingObject(with: id).setValue("#e00", forKey: "colour") }
        try first.performAndWait {
            try first.existingObject(with: id).setValue("#d00", forKey: "colour")
            try first.save()
        }
        let lost = try #require(second.performAndWait { Self.bridged { try second.save() } })
        #expect(lost.domain == NSCocoaErrorDomain)
        #expect(lost.code == PersistenceErrorCode.managedObjectMerge && lost.code == 133_020)
        second.performAndWait { second.rollback() }

        let twin = try #require(try second.performAndWait { () throws -> NSError? in
            let tag = try second.insertNewObject(forEntityName: "Tag")
            tag.setValue("red", forKey: "name")
            tag.setValue("#0f0", forKey: "colour")
            return Self.bridged { try second.save() }
        })
        #expect(twin.code == PersistenceErrorCode.managedObjectConstraintMerge && twin.code == 133_021)
        #expect(twin.localizedDescription.contains("uniqueness constraint of Tag"))
    }

    @Test func validationErrorsCarryOneCodeOrTheManyWithTheirDetails() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("tags.sqlite"))
        try context.performAndWait {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("blue", forKey: "name")
            let one = try #require(Self.bridged { try context.save() })
            #expect(one.code == PersistenceErrorCode.managedObjectValidation && one.code == 1550)
            #expect(one.userInfo[ValidationError.validationKeyErrorKey] as? String == "colour")

            tag.setValue(nil, forKey: "name")
            let many = try #require(Self.bridged { try context.save() })
            #expect(many.code == PersistenceErrorCode.validationMultipleErrors && many.code == 1560)
            let details = many.userInfo[ValidationError.detailedErrorsKey] as? [NSError] ?? []
            #expect(Set(details.compactMap { $0.userInfo[ValidationError.validationKeyErrorKey] as? String }) == ["name", "colour"])
            #expect(details.allSatisfy { $0.code == 1550 })
        }
    }

    @Test func aGoneObjectCarriesTheReferentialIntegrityCode() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("tags.sqlite"))
        try context.performAndWait {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("green", forKey: "name")
            tag.setValue("#0f0", forKey: "colour")
            try context.save()
            let id = tag.objectID
            context.delete(tag)
            try context.save()
            let gone = try #require(Self.bridged { _ = try context.existingObject(with: id) })
            #expect(gone.code == PersistenceErrorCode.managedObjectReferentialIntegrity)
        }
    }
}

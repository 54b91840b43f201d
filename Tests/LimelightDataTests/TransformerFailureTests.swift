import Foundation
import Testing
@testable import LimelightData

/// A transformer of the application's that throws its own error while a save encodes a value:
/// the save fails naming the entity, the attribute, the transformer and the value's type, and
/// writes nothing.
@Suite struct TransformerFailureTests {
    @Test func aThrowingTransformerIsNamedWithTheAttribute() throws {
        ValueTransformerRegistry.shared.register(.init(encode: { value in
            guard let text = value as? NSAttributedString else { throw CocoaError(.coderInvalidValue) }
            return Data(text.string.utf8)
        }, decode: { data in NSAttributedString(string: String(decoding: data, as: UTF8.self)) }), forName: "CaptionTransformer")
        let caption = AttributeDescription(name: "caption", type: .transformable)
        caption.valueTransformerName = "CaptionTransformer"
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Photo", properties: [
            AttributeDescription(name: "name", type: .string), caption,
        ])])
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: model, at: folder.file("photos.sqlite"))
        let good = try context.insertNewObject(forEntityName: "Photo")
        good.setValue(NSAttributedString(string: "Dunes"), forKey: "caption")
        let bad = try context.insertNewObject(forEntityName: "Photo")
        bad.setValue("plain text", forKey: "caption")
        #expect { try context.save() } throws: { error in
            let text = "\(error)"
            return text.contains("Photo.caption") && text.contains("CaptionTransformer") && text.contains("String")
        }
        context.delete(bad)
        try context.save()
        context.reset()
        let saved = try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo"))
        #expect(saved.count == 1)
        #expect((saved.first?.value(forKey: "caption") as? NSAttributedString)?.string == "Dunes")
    }
}

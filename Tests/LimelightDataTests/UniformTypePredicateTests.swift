import Foundation
import Testing
@testable import LimelightData

/// UTI-CONFORMS-TO and UTI-EQUALS, as share extensions' activation rules and file catalogues write
/// them: conformance through Apple's public type hierarchy, in memory and in SQL alike.
@Suite struct UniformTypePredicateTests {
    /// Items of a type, with attachments of types.
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "kind", type: .string),
            RelationshipDescription(name: "attachments", destination: "Attachment", inverse: "item", toMany: true),
        ])
        let attachment = EntityDescription(name: "Attachment", properties: [
            AttributeDescription(name: "kind", type: .string),
            RelationshipDescription(name: "item", destination: "Item", inverse: "attachments"),
        ])
        return ManagedObjectModel(entities: [item, attachment])
    }

    /// A saved store of five items, fetched back.
    final class Fixture {
        let folder: TemporaryFolder
        let context: ManagedObjectContext
        let items: [ManagedObject]

        init() throws {
            folder = try TemporaryFolder()
            context = try TestStack.context(model: UniformTypePredicateTests.model(), at: folder.file("types.sqlite"))
            let contents: [(String, String?, [String])] = [
                ("photo", "public.jpeg", ["public.png"]),
                ("clip", "com.apple.quicktime-movie", ["public.jpeg", "public.mpeg-4"]),
                ("note", "public.utf8-plain-text", ["public.url"]),
                ("blob", "com.example.custom", []),
                ("unknown", nil, ["public.heic", "com.adobe.pdf"]),
            ]
            for (name, kind, attachmentKinds) in contents {
                let item = try context.insertNewObject(forEntityName: "Item")
                item.setValue(name, forKey: "name")
                item.setValue(kind, forKey: "kind")
                for attachmentKind in attachmentKinds {
                    let attachment = try context.insertNewObject(forEntityName: "Attachment")
                    attachment.setValue(attachmentKind, forKey: "kind")
                    attachment.setValue(item, forKey: "item")
                }
            }
            try context.save()
            context.reset()
            items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        }

        /// The names of the items the predicate selects, the same from SQL and in memory.
        func names(_ format: String, _ arguments: Any?..., sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
            let predicate = try QueryPredicate(format: format, argumentArray: arguments)
            let fromSQL = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate))
            let inMemory = try items.filter { try predicate.evaluate(with: $0) }
            let sqlNames = fromSQL.compactMap { $0.value(forKey: "name") as? String }.sorted()
            let memoryNames = inMemory.compactMap { $0.value(forKey: "name") as? String }.sorted()
            #expect(sqlNames == memoryNames, "\(format)", sourceLocation: sourceLocation)
            return memoryNames
        }
    }

    @Test func conformanceFollowsThePublicTypeHierarchy() throws {
        let image = try QueryPredicate(format: "SELF UTI-CONFORMS-TO 'public.image'")
        #expect(try image.evaluate(with: "public.jpeg"))
        #expect(try image.evaluate(with: "public.image"))
        // Through public.heif-standard, and whatever the case of the identifier.
        #expect(try image.evaluate(with: "public.heic"))
        #expect(try image.evaluate(with: "PUBLIC.PNG"))
        #expect(try !image.evaluate(with: "public.plain-text"))
        #expect(try !image.evaluate(with: nil))
        let data = try QueryPredicate(format: "SELF UTI-CONFORMS-TO %@", "public.data")
        #expect(try data.evaluate(with: "public.utf8-plain-text"))
        #expect(try data.evaluate(with: "com.adobe.pdf"))
        #expect(try !data.evaluate(with: "public.folder"))
        // A type outside the table conforms to itself only.
        #expect(try QueryPredicate(format: "SELF UTI-CONFORMS-TO 'com.example.custom'").evaluate(with: "com.example.custom"))
        #expect(try !QueryPredicate(format: "SELF UTI-CONFORMS-TO 'public.data'").evaluate(with: "com.example.custom"))
        let equals = try QueryPredicate(format: "SELF UTI-EQUALS 'public.jpeg'")
        #expect(try equals.evaluate(with: "Public.JPEG"))
        #expect(try !equals.evaluate(with: "public.image"))
        #expect { try image.evaluate(with: 42) } throws: { "\($0)".contains("UTI-CONFORMS-TO must be a string") }
    }

    @Test func fetchesSelectWhatMemorySelects() throws {
        let fixture = try Fixture()
        #expect(try fixture.names("kind UTI-CONFORMS-TO 'public.image'") == ["photo"])
        #expect(try fixture.names("kind UTI-CONFORMS-TO %@", "public.movie") == ["clip"])
        #expect(try fixture.names("kind UTI-CONFORMS-TO 'public.data'") == ["clip", "note", "photo"])
        #expect(try fixture.names("kind UTI-EQUALS 'PUBLIC.JPEG'") == ["photo"])
        #expect(try fixture.names("NOT kind UTI-CONFORMS-TO 'public.audiovisual-content'") == ["blob", "note", "photo", "unknown"])
        #expect(try fixture.names("ANY attachments.kind UTI-CONFORMS-TO 'public.image'") == ["clip", "photo", "unknown"])
        #expect(try fixture.names("NONE attachments.kind UTI-CONFORMS-TO 'public.content'") == ["blob", "note"])
        #expect(try fixture.names("SUBQUERY(attachments, $a, $a.kind UTI-CONFORMS-TO 'public.image').@count == attachments.@count")
                == ["blob", "photo"])
    }

    @Test func anActivationRuleReadsTheSharedItems() throws {
        let rule = try QueryPredicate(format: """
            SUBQUERY (
                extensionItems,
                $extensionItem,
                SUBQUERY (
                    $extensionItem.attachments,
                    $attachment,
                    ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO "public.image"
                ).@count == $extensionItem.attachments.@count
            ).@count == 1
            """)
        func shared(_ types: [[String]]) -> [String: Any] {
            ["extensionItems": [["attachments": types.map { ["registeredTypeIdentifiers": $0] }]]]
        }
        #expect(try rule.evaluate(with: shared([["public.jpeg", "public.file-url"], ["public.png"]])))
        #expect(try !rule.evaluate(with: shared([["public.jpeg"], ["public.url"]])))
        #expect(try QueryPredicate(format: rule.predicateFormat) == rule)
        #expect(rule.predicateFormat.contains("UTI-CONFORMS-TO"))
    }
}

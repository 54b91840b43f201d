import Foundation
import Testing
@testable import LimelightData

final class Notebook: ManagedObject {
    @Managed var title: String?
    @Managed var pages: Set<Page>
}

final class Page: ManagedObject {
    @Managed var text: String?
    @Managed var notebook: Notebook?
}

/// Shares its class name with no entity.
final class Stray: ManagedObject {}

/// `init(context:)`, as Swift code written for Core Data makes its objects.
struct ObjectCreationTests {
    static func model() -> ManagedObjectModel {
        let notebook = EntityDescription(name: "Notebook", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "pages", destination: "Page", inverse: "notebook", toMany: true),
        ])
        notebook.managedObjectClassName = "Jotter.Notebook"
        let page = EntityDescription(name: "Page", properties: [
            AttributeDescription(name: "text", type: .string),
            RelationshipDescription(name: "notebook", destination: "Notebook", inverse: "pages"),
        ])
        return ManagedObjectModel(entities: [notebook, page])
    }

    @Test func objectsMadeFromTheirClassAreSavedAndFetchedAsThatClass() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        let notebook = try Notebook(context: context)
        notebook.title = "Ideas"
        let page = try Page(context: context)
        page.text = "a search provider"
        page.notebook = notebook
        #expect(notebook.entity.name == "Notebook" && page.isInserted)
        try context.save()

        let reader = try TestStack.context(model: Self.model(), at: url)
        let fetched = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Notebook"), as: Notebook.self)
        #expect(fetched.first?.title == "Ideas")
        #expect(fetched.first?.pages.first?.text == "a search provider")
    }

    @Test func aClassNoEntityStandsForIsNamed() throws {
        let context = try TestStack.context(model: Self.model(), at: nil)
        do {
            _ = try Stray(context: context)
            Issue.record("an object without an entity was made")
        } catch {
            #expect("\(error)".contains("no entity of the model is represented by Stray"), "\(error)")
        }
        #expect(context.insertedObjects.isEmpty)
    }
}

import Foundation
import Testing
@testable import LimelightData

/// A class as Xcode's "Manual/None" codegen writes it, ported by dropping `NS` and `@objc`.
final class Journal: ManagedObject {
    @Managed var title: String?
    @Managed var pages: Int32

    public class func fetchRequest() -> FetchRequest<Journal> {
        FetchRequest<Journal>(entityName: "Journal")
    }
}

/// A hand-written class that, as many apps' do, declares its own entity look-up and
/// `init(context:)`, which Core Data leaves to it.
final class Folder: ManagedObject {
    @Managed var name: String?

    class func entity(in context: ManagedObjectContext) -> EntityDescription? {
        EntityDescription.entity(forEntityName: "Folder", in: context)
    }

    convenience init(context moc: ManagedObjectContext) {
        // A test class: the entity is in the test's model.
        self.init(entity: Folder.entity(in: moc) ?? EntityDescription(name: "Folder", properties: []), insertInto: moc)
        name = "Untitled"
    }
}

/// Code Core Data's generated classes carry still compiles and behaves beside the library's own
/// `fetchRequest()`.
@Suite struct PortedClassTests {
    @Test func aClassesOwnFetchRequestMethodIsTheOneCalled() throws {
        let folder = try TemporaryFolder()
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Journal", properties: [
            AttributeDescription(name: "title", type: .string), AttributeDescription(name: "pages", type: .integer32),
        ])])
        let context = try TestStack.context(model: model, at: folder.file("journals.sqlite"))
        let titles = try context.performAndWait {
            for (title, pages) in [("Travel", 120), ("Garden", 40)] {
                let journal = try Journal(context: context)
                journal.title = title
                journal.pages = Int32(pages)
            }
            try context.save()
            let request = Journal.fetchRequest()
            #expect(request.entityName == "Journal", "the class's own method, which names the entity")
            request.sortDescriptors = [QuerySortDescriptor(keyPath: \Journal.pages, ascending: false)]
            return try context.fetch(request).compactMap(\.title)
        }
        #expect(titles == ["Travel", "Garden"])
    }

    @Test func aClassesOwnEntityLookUpAndInitializerAreTheOnesCalled() throws {
        let folder = try TemporaryFolder()
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Folder", properties: [AttributeDescription(name: "name", type: .string)])])
        let context = try TestStack.context(model: model, at: folder.file("folders.sqlite"))
        let names = try context.performAndWait {
            let made = Folder(context: context)
            #expect(made.entity === model.entity(named: "Folder"))
            try context.save()
            return try context.fetch(Folder.fetchRequest()).compactMap(\.name)
        }
        #expect(names == ["Untitled"])
    }
}

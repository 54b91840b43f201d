import Foundation
import Testing
@testable import LimelightData

/// Compiled models in the forms the fixture store's cache does not show, archived by Foundation's
/// `NSKeyedArchiver` under Core Data's class names and keys: known-keys dictionaries, property
/// proxies, flag words and separate flags, bounds, predicates, templates and configurations.
@Suite struct CompiledModelFormsTests {
    typealias P = ArchivedPredicates

    /// Folder (name; notes, ordered, cascade) ← SmartFolder (query; the parent's properties as
    /// proxies) and Note (title, body, size, attachment; folder; fetched `siblings`).
    static func notesArchive() throws -> Data {
        let model = ArchiveStub("NSManagedObjectModel"), folder = ArchiveStub("NSEntityDescription"), smart = ArchiveStub("NSEntityDescription"), note = ArchiveStub("NSEntityDescription")
        let name = ArchiveStub("NSAttributeDescription", [("NSPropertyName", "name"), ("NSEntity", folder), ("NSAttributeType", 700), ("_P", 0x1)])
        let notes = ArchiveStub("NSRelationshipDescription", [("NSPropertyName", "notes"), ("NSEntity", folder), ("NSDestinationEntity", note),
                                      ("NSMaxCount", 0), ("NSMinCount", 0), ("NSDeleteRule", 2), ("_P", 0x1 | 0x2 | 0x400)])
        let query = ArchiveStub("NSAttributeDescription", [("NSPropertyName", "query"), ("NSEntity", smart), ("NSAttributeType", 700), ("NSIsOptional", true),
                                   ("NSDefaultValue", "kind:note"), ("NSRenamingIdentifier", "search")])
        let title = ArchiveStub("NSAttributeDescription", [("NSPropertyName", "title"), ("NSEntity", note), ("NSAttributeType", 700), ("_P", 0x1 | 0x100),
                                   ("NSRenamingIdentifier", "title"), ("NSValidationPredicates", ArchivedArray(elements: [
                                       P.comparison(ArchiveStub("NSSelfExpression"), 6, P.constant("[A-Z].*")),
                                   ]))])
        let body = ArchiveStub("NSAttributeDescription", [("NSPropertyName", "body"), ("NSEntity", note), ("NSAttributeType", 700),
                                  ("NSIsOptional", true), ("NSIndexedBySpotlight", true), ("NSIsStoredInTruth", true)])
        let size = ArchiveStub("NSAttributeDescription", [("NSPropertyName", "size"), ("NSEntity", note), ("NSAttributeType", 200), ("_P", 0x1 | 0x2),
                                  ("NSFlagsKey", 0x2), ("NSMinValueName", 0), ("NSDefaultValue", 3), ("NSIsIndexed", true),
                                  ("NSValidationPredicates", ArchivedArray(elements: [P.comparison(ArchiveStub("NSSelfExpression"), 1, P.constant(100))]))])
        let attachment = ArchiveStub("NSAttributeDescription", [("NSPropertyName", "attachment"), ("NSEntity", note), ("NSAttributeType", 1000),
                                        ("_P", 0x1 | 0x2), ("NSFlagsKey", 0x4 | 0x10)])
        let owner = ArchiveStub("NSRelationshipDescription", [("NSPropertyName", "folder"), ("NSEntity", note), ("NSDestinationEntity", folder),
                                      ("NSInverseRelationship", notes), ("NSMaxCount", 1), ("NSDeleteRule", 1), ("_P", 0x1 | 0x2)])
        notes.fields.append(("NSInverseRelationship", owner))
        let siblingsPredicate = P.compound(1, [
            P.comparison(P.keyPath("folder"), 4, P.keyPath("folder", of: P.variable("FETCH_SOURCE"))),
            P.comparison(P.keyPath("title"), 8, P.constant("a"), options: 3),
        ])
        let siblings = ArchiveStub("NSFetchedPropertyDescription", [("NSPropertyName", "siblings"), ("NSEntity", note), ("_P", 0x1 | 0x2 | 0x8),
                                            ("NSFetchRequest", ArchiveStub("NSFetchRequest", [("NSEntity", "Note"), ("NSPredicate", siblingsPredicate)]))])
        // A fetched property whose predicate this framework cannot read is left out, not guessed.
        let unreadable = ArchiveStub("NSFetchedPropertyDescription", [("NSPropertyName", "weird"), ("NSEntity", note), ("_P", 0x1 | 0x2 | 0x8),
                                              ("NSFetchRequest", ArchiveStub("NSFetchRequest", [("NSEntity", "Note"), ("NSPredicate",
                                                  P.comparison(ArchiveStub("NSSubqueryExpression", [("NSExpressionType", 13)]), 4, P.constant(1)))]))])
        folder.fields = [("NSEntityName", "Folder"), ("NSManagedObjectModel", model),
                         ("NSProperties", ArchivedDictionary(entries: [("name", name), ("notes", notes)])),
                         ("NSSubentities", ArchivedDictionary(entries: [("SmartFolder", smart)]))]
        smart.fields = [("NSEntityName", "SmartFolder"), ("NSManagedObjectModel", model), ("NSSuperentity", folder),
                        ("NSClassNameForEntity", "SmartFolderObject"),
                        ("NSProperties", ArchivedDictionary(entries: [("name", ArchiveStub("_NSPropertyDescriptionProxy", [("NSUnderlyingProperty", name), ("NSReferenceID", 0), ("NSEntityDescription", smart)])), ("notes", ArchiveStub("_NSPropertyDescriptionProxy", [("NSUnderlyingProperty", notes), ("NSReferenceID", 1), ("NSEntityDescription", smart)])), ("query", query)]))]
        note.fields = [("NSEntityName", "Note"), ("NSManagedObjectModel", model), ("NSClassNameForEntity", "NSManagedObject"),
                       ("NSUniqueTuples", ArchivedArray(elements: [ArchivedArray(elements: ["title", "folder"])])),
                       ("NSProperties", ArchivedDictionary(entries: [("title", title), ("body", body), ("size", size), ("attachment", attachment), ("folder", owner), ("siblings", siblings), ("weird", unreadable)]))]
        let entities = ArchiveStub("NSKnownKeysDictionary1", [("version", 1), ("emptyToken", "__empty__"),
                                      ("searchMapping", ArchiveStub("NSKnownKeysMappingStrategy1", [("version", 1), ("length", 4),
                                                                     ("keys", ArchivedArray(elements: ["Folder", "Gone", "Note", "SmartFolder"]))])),
                                      ("values", ArchivedArray(elements: [folder, "__empty__", note, smart]))])
        let recent = ArchiveStub("NSFetchRequest", [("NSEntity", note), ("NSFetchLimit", 5), ("NSHasFetchRequestFlags", true), ("NSFetchRequestFlags", 0x1 | 0x4 | 0x10),
                                       ("NSPredicate", P.compound(2, [
                                           P.comparison(P.keyPath("size"), 2, P.variable("MIN")),
                                           P.comparison(P.keyPath("title"), 10, P.constant(ArchivedArray(elements: ["x", "y\"z"]))),
                                       ]))])
        model.fields = [("NSEntities", entities),
                        ("NSFetchRequestTemplates", ArchivedDictionary(entries: [("recent", recent)])),
                        ("NSConfigurations", ArchivedDictionary(entries: [("Cloud", ArchivedSet(elements: [note, folder]))])),
                        ("NSVersionIdentifiers", ArchivedSet(elements: ["2"]))]
        return try ArchiveStub.archive(model)
    }

    @Test func everyArchivedFormReadsAsCoreDataMeansIt() throws {
        let model = try ManagedObjectModel(archiveData: Self.notesArchive(), source: "Notes.mom")
        #expect(model.entities.map(\.name).sorted() == ["Folder", "Note", "SmartFolder"])
        let folder = try #require(model.entity(named: "Folder")), smart = try #require(model.entity(named: "SmartFolder"))
        let note = try #require(model.entity(named: "Note"))
        // Inherited properties (here as proxies) belong to the parent only.
        #expect(smart.superentity === folder)
        #expect(smart.ownProperties.map(\.name) == ["query"])
        #expect(smart.properties.map(\.name).sorted() == ["name", "notes", "query"])
        #expect(smart.managedObjectClassName == "SmartFolderObject")
        #expect(note.managedObjectClassName == nil)
        let query = try #require(smart.ownProperties.first as? AttributeDescription)
        #expect(query.isOptional && query.defaultValue as? String == "kind:note" && query.renamingIdentifier == "search")

        let notes = try #require(folder.ownProperties.first { $0.name == "notes" } as? RelationshipDescription)
        #expect(notes.isToMany && notes.isOrdered && notes.deleteRule == .cascade && notes.inverseName == "folder" && notes.destinationEntityName == "Note")
        let owner = try #require(note.ownProperties.first { $0.name == "folder" } as? RelationshipDescription)
        #expect(!owner.isToMany && owner.deleteRule == .nullify && owner.inverseName == "notes")

        // Flags from the packed word and from separate keys.
        let title = try #require(note.ownProperties.first { $0.name == "title" } as? AttributeDescription)
        #expect(!title.isOptional && title.isIndexedBySpotlight && !title.isStoredInExternalRecord && title.renamingIdentifier == nil)
        #expect(title.regularExpression == "[A-Z].*")
        let body = try #require(note.ownProperties.first { $0.name == "body" } as? AttributeDescription)
        #expect(body.isOptional && body.isIndexedBySpotlight && body.isStoredInExternalRecord)
        let size = try #require(note.ownProperties.first { $0.name == "size" } as? AttributeDescription)
        #expect(size.attributeType == .integer32 && size.minValue == 0 && size.maxValue == 100 && size.defaultValue as? Int32 == 3 && size.isIndexed)
        let attachment = try #require(note.ownProperties.first { $0.name == "attachment" } as? AttributeDescription)
        #expect(attachment.allowsExternalBinaryDataStorage && attachment.preservesValueInHistoryOnDeletion)
        #expect(note.uniquenessConstraints == [["title", "folder"]])

        // Predicates come back as format strings; the one that cannot is left out.
        let siblings = try #require(note.ownProperties.first { $0.name == "siblings" } as? FetchedPropertyDescription)
        #expect(siblings.destinationEntityName == "Note" && siblings.isTransient)
        #expect(siblings.predicateFormat == #"(folder == $FETCH_SOURCE.folder) AND (title BEGINSWITH[cd] "a")"#)
        #expect(!note.ownProperties.contains { $0.name == "weird" })
        let recent = try #require(model.fetchRequestTemplates["recent"])
        #expect(recent.entityName == "Note" && recent.fetchLimit == 5)
        #expect(recent.predicateFormat == #"(#size > $MIN) OR (title IN {"x", "y\"z"})"#)
        #expect(recent.returnsDistinctResults && !recent.includesSubentities && recent.includesPropertyValues && !recent.returnsObjectsAsFaults)
        #expect(model.configurations == ["Cloud": ["Folder", "Note"]])
        #expect(model.versionIdentifiers == ["2"])
    }

    @Test func aStoreWorksWithTheArchivedModel() throws {
        let folder = try TemporaryFolder()
        let model = try ManagedObjectModel(archiveData: Self.notesArchive(), source: "Notes.mom")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("notes.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let box = try context.insertNewObject(forEntityName: "SmartFolder")
            box.setValue("Inbox", forKey: "name")
            for (index, title) in ["Alpha", "Apple", "Beta"].enumerated() {
                let note = try context.insertNewObject(forEntityName: "Note")
                note.setValue(title, forKey: "title")
                note.setValue(Int32(index * 20), forKey: "size")
                note.setValue(box, forKey: "folder")
            }
            try context.save()
            let alpha = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: try QueryPredicate(format: "title == 'Alpha'"))).first)
            let siblings = try #require(alpha.value(forKey: "siblings") as? [ManagedObject])
            #expect(Set(siblings.compactMap { $0.value(forKey: "title") as? String }) == ["Alpha", "Apple"])
            let recent = try model.fetchRequestFromTemplate(withName: "recent", substitutionVariables: ["MIN": 10])
            #expect(Set(try context.fetch(recent).compactMap { ($0 as? ManagedObject)?.value(forKey: "title") as? String }) == ["Apple", "Beta"])
            #expect((box.value(forKey: "notes") as? [ManagedObject])?.count == 3)
            #expect(box.value(forKey: "query") as? String == "kind:note")
        }
    }

    @Test func archivesThatGoRoundAreRefusedNotFollowed() throws {
        func model(_ build: (ArchiveStub, ArchiveStub) -> Void) throws -> ManagedObjectModel {
            let root = ArchiveStub("NSManagedObjectModel"), entity = ArchiveStub("NSEntityDescription")
            entity.fields = [("NSEntityName", "Loop"), ("NSManagedObjectModel", root)]
            root.fields = [("NSEntities", ArchivedDictionary(entries: [("Loop", entity)]))]
            build(root, entity)
            return try ManagedObjectModel(archiveData: ArchiveStub.archive(root), source: "Loop.mom")
        }
        // A proxy that stands for itself.
        let proxy = try #require(throws: ModelError.self) {
            try model { _, entity in
                let loop = ArchiveStub("_NSPropertyDescriptionProxy")
                loop.fields = [("NSUnderlyingProperty", loop)]
                entity.fields.append(("NSProperties", ArchivedDictionary(entries: [("loop", loop)])))
            }
        }
        #expect(proxy.reason.contains("proxy"))
        // An entity that is its own parent.
        let parent = try #require(throws: ModelError.self) { try model { _, entity in entity.fields.append(("NSSuperentity", entity)) } }
        #expect(parent.reason.contains("inheritance cycle"))
        // A default URL whose text is itself, and a predicate nested past any real one: read, not followed.
        let read = try model { _, entity in
            let url = ArchiveStub("NSURL")
            url.fields = [("NS.relative", url)]
            var deep = ArchivedPredicates.comparison(ArchivedPredicates.keyPath("a"), 4, ArchivedPredicates.constant(1))
            for _ in 0..<200 { deep = ArchivedPredicates.compound(0, [deep]) }
            entity.fields.append(("NSProperties", ArchivedDictionary(entries: [
                ("link", ArchiveStub("NSAttributeDescription", [("NSPropertyName", "link"), ("NSEntity", entity), ("NSAttributeType", 1200), ("NSDefaultValue", url)])),
                ("deep", ArchiveStub("NSFetchedPropertyDescription", [("NSPropertyName", "deep"), ("NSEntity", entity),
                                                                      ("NSFetchRequest", ArchiveStub("NSFetchRequest", [("NSEntity", "Loop"), ("NSPredicate", deep)]))])),
            ])))
        }
        let entity = try #require(read.entity(named: "Loop"))
        #expect(entity.ownProperties.map(\.name) == ["link"])
        #expect((entity.ownProperties.first as? AttributeDescription)?.defaultValue == nil)
    }

    /// A predicate whose two parts are one archived predicate, whose two are another, 60 deep: a
    /// few objects in the archive, 2^60 parts to write out, and reading it never ended. It is
    /// left out with its fetched property, as a predicate that cannot be read is.
    @Test func aPredicateSharingItsPartsIntoABombIsLeftOut() throws {
        let root = ArchiveStub("NSManagedObjectModel"), entity = ArchiveStub("NSEntityDescription")
        var bomb = ArchivedPredicates.comparison(ArchivedPredicates.keyPath("a"), 4, ArchivedPredicates.constant(1))
        for _ in 0..<60 { bomb = ArchivedPredicates.compound(1, [bomb, bomb]) }
        entity.fields = [("NSEntityName", "Loop"), ("NSManagedObjectModel", root), ("NSProperties", ArchivedDictionary(entries: [
            ("name", ArchiveStub("NSAttributeDescription", [("NSPropertyName", "name"), ("NSEntity", entity), ("NSAttributeType", 700)])),
            ("bomb", ArchiveStub("NSFetchedPropertyDescription", [("NSPropertyName", "bomb"), ("NSEntity", entity),
                                                                  ("NSFetchRequest", ArchiveStub("NSFetchRequest", [("NSEntity", "Loop"), ("NSPredicate", bomb)]))])),
        ]))]
        root.fields = [("NSEntities", ArchivedDictionary(entries: [("Loop", entity)]))]
        let archive = try ArchiveStub.archive(root)
        #expect(archive.count < 20_000)
        let read = try ManagedObjectModel(archiveData: archive, source: "Bomb.mom")
        #expect(try #require(read.entity(named: "Loop")).ownProperties.map(\.name) == ["name"])
    }

    /// Integer bounds no `Int64` holds, as a model file may give them (`1e300`, `nan`), trapped
    /// when a new store archived its model into its cache. They are kept as the numbers they are.
    @Test func integerBoundsBeyondInt64AreArchivedAsTheyAre() throws {
        let xml = """
        <model><entity name="Gauge"><attribute name="level" attributeType="Integer 16" minValueString="-1e300" maxValueString="nan"/>\
        <attribute name="label" attributeType="String" maxValueString="inf"/></entity></model>
        """
        let model = try ManagedObjectModel(xmlData: Data(xml.utf8), source: "Gauge.xcdatamodel")
        let folder = try TemporaryFolder()
        let url = folder.file("gauges.sqlite")
        try PersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(type: .sqlite, at: url)
        let cached = try #require(try ManagedObjectModel(cachedInStoreAt: url).entity(named: "Gauge"))
        let level = try #require(cached.attributesByName["level"]), label = try #require(cached.attributesByName["label"])
        #expect(level.minValue == -1e300 && level.maxValue?.isNaN == true && label.maxValue == .infinity)
    }
}

import Foundation
import Testing
@testable import LimelightData

/// Batch deletes and updates, carried out in the store: delete rules, join rows, optimistic
/// locking and marker files kept as a save keeps them.
@Suite(.serialized) struct BatchRequestTests {
    /// Person —folders (Deny)→ Folder —notes (Cascade)→ Note ⟷ Tag (many-to-many, Nullify);
    /// Person —pinned (Nullify)→ Note.pinnedBy (to-one).
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Person", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "folders", destination: "Folder", inverse: "owner", toMany: true, deleteRule: .deny),
                RelationshipDescription(name: "pinned", destination: "Note", inverse: "pinnedBy", toMany: true),
            ]),
            EntityDescription(name: "Folder", properties: [
                AttributeDescription(name: "title", type: .string),
                RelationshipDescription(name: "owner", destination: "Person", inverse: "folders"),
                RelationshipDescription(name: "notes", destination: "Note", inverse: "folder", toMany: true, deleteRule: .cascade),
            ]),
            EntityDescription(name: "Note", properties: [
                AttributeDescription(name: "title", type: .string), AttributeDescription(name: "rank", type: .integer64, isOptional: false, defaultValue: Int64(0)),
                RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
                RelationshipDescription(name: "pinnedBy", destination: "Person", inverse: "pinned"),
                RelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true),
            ]),
            EntityDescription(name: "Tag", properties: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                RelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true),
            ]),
        ])
    }

    /// Ada owns folder A (notes 0…9) and pins note 0; Bo owns nothing and pins note 1; every note
    /// is tagged "all", even ones "even".
    static func populated(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let context = try TestStack.context(model: model(), at: folder.file("notes.sqlite"))
        let ada = try context.insertNewObject(forEntityName: "Person"), bo = try context.insertNewObject(forEntityName: "Person")
        ada.setValue("Ada", forKey: "name")
        bo.setValue("Bo", forKey: "name")
        let box = try context.insertNewObject(forEntityName: "Folder")
        box.setValue("A", forKey: "title")
        box.setValue(ada, forKey: "owner")
        let all = try context.insertNewObject(forEntityName: "Tag"), even = try context.insertNewObject(forEntityName: "Tag")
        all.setValue("all", forKey: "name")
        even.setValue("even", forKey: "name")
        for index in 0..<10 {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue("note \(index)", forKey: "title")
            note.setValue(Int64(index), forKey: "rank")
            note.setValue(box, forKey: "folder")
            note.mutableSetValue(forKey: "tags").insert(all)
            if index % 2 == 0 { note.mutableSetValue(forKey: "tags").insert(even) }
            if index == 0 { note.setValue(ada, forKey: "pinnedBy") }
            if index == 1 { note.setValue(bo, forKey: "pinnedBy") }
        }
        try context.save()
        context.reset()
        return context
    }

    func count(_ context: ManagedObjectContext, _ entity: String, _ format: String? = nil) throws -> Int {
        try context.count(for: FetchRequest<ManagedObject>(entityName: entity, predicate: try format.map { try QueryPredicate(format: $0) }))
    }

    @Test func deletingByPredicateTakesJoinRowsAndReportsWhatWent() throws {
        let folder = try TemporaryFolder()
        let context = try Self.populated(folder)
        let request = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Note", predicate: try QueryPredicate(format: "rank >= 6")))
        request.resultType = .objectIDs
        let result = try context.execute(request)
        #expect(result.status && result.count == 4 && result.objectIDs?.count == 4)
        #expect(try count(context, "Note") == 6)
        // Join rows went with them: the tags count only the notes left.
        #expect(try count(context, "Tag", "name == 'all' AND notes.@count == 6") == 1)
        #expect(try count(context, "Tag", "name == 'even' AND notes.@count == 3") == 1)
        let folderObject = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Folder")).first)
        #expect((folderObject.value(forKey: "notes") as? Set<ManagedObject>)?.count == 6)
        // By IDs: ones already gone count for nothing.
        let again = try context.execute(BatchDeleteRequest(objectIDs: try #require(result.objectIDs) + [try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag", predicate: try QueryPredicate(format: "name == 'even'")))[0].objectID]))
        #expect(again.count == 1)
        #expect(try count(context, "Tag") == 1)
        #expect(try count(context, "Note") == 6)
    }

    @Test func deleteRulesCascadeNullifyAndDeny() throws {
        let folder = try TemporaryFolder()
        let context = try Self.populated(folder)
        // Deny: Ada owns a folder; nothing at all is deleted.
        let denied = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Person", predicate: try QueryPredicate(format: "name == 'Ada'")))
        #expect(throws: PersistenceError.self) { try context.execute(denied) }
        #expect(try count(context, "Person") == 2)
        #expect(try count(context, "Note", "pinnedBy.name == 'Ada'") == 1)
        // Nullify: Bo goes, and the note he pinned no longer points at him (its version moved on).
        let pinned = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: try QueryPredicate(format: "pinnedBy.name == 'Bo'"))).first)
        _ = pinned.value(forKey: "title")
        let bo = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Person", predicate: try QueryPredicate(format: "name == 'Bo'")))
        #expect(try context.execute(bo).count == 1)
        #expect(try count(context, "Note", "pinnedBy == nil") == 9)
        pinned.setValue("stale", forKey: "title")
        #expect(throws: PersistenceError.self) { try context.save() }
        context.rollback()
        // Cascade: the folder takes its notes, and their join rows, with it.
        let boxes = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Folder"))
        boxes.resultType = .count
        let result = try context.execute(boxes)
        #expect(result.count == 11 && result.objectIDs == nil)
        #expect(try count(context, "Note") == 0)
        #expect(try count(context, "Tag", "notes.@count > 0") == 0)
        #expect(try count(context, "Person") == 1)
    }

    @Test func updatingSetsValuesAndContextsMergeTheResult() throws {
        let folder = try TemporaryFolder()
        let context = try Self.populated(folder)
        let small = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: try QueryPredicate(format: "rank < 3")))
        #expect(small.count == 3 && small.allSatisfy { ($0.value(forKey: "rank") as? Int64 ?? -1) < 3 })
        let request = BatchUpdateRequest(entityName: "Note")
        request.predicate = try QueryPredicate(format: "rank < 3")
        request.propertiesToUpdate = ["rank": 100, "title": NSNull()]
        request.resultType = .updatedObjectIDs
        let result = try context.execute(request)
        let updatedIDs = try #require(result.objectIDs)
        #expect(result.count == 3 && Set(updatedIDs) == Set(small.map(\.objectID)))
        #expect(try count(context, "Note", "rank == 100 AND title == nil") == 3)
        // The context still shows what it read until it merges the IDs.
        #expect(small.allSatisfy { ($0.value(forKey: "rank") as? Int64 ?? -1) < 3 })
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: ["updated": result.objectIDs ?? []], into: [context])
        #expect(small.allSatisfy { $0.value(forKey: "rank") as? Int64 == 100 })

        for (values, says) in [(["rank": "many"] as [String: Any], "no Integer 64"), (["rank": NSNull()], "required"),
                               (["folder": NSNull()], "not a stored attribute"), (["nope": 1], "not a stored attribute")] {
            let bad = BatchUpdateRequest(entityName: "Note")
            bad.propertiesToUpdate = values
            #expect { try context.execute(bad) } throws: { "\($0)".contains(says) }
        }
        #expect(try count(context, "Note", "rank == 100") == 3)
    }

    @Test func insertingFillsDefaultsAndRefusesWhatASaveWould() throws {
        let folder = try TemporaryFolder()
        let context = try Self.populated(folder)
        let request = BatchInsertRequest(entityName: "Note", objects: (0..<1_000).map { ["title": "bulk \($0)", "rank": Int32($0 % 7)] })
        request.resultType = .objectIDs
        let result = try context.execute(request)
        #expect(result.count == 1_000 && result.objectIDs?.count == 1_000 && result.objectIDs?.allSatisfy { !$0.isTemporaryID } == true)
        #expect(try count(context, "Note", "title BEGINSWITH 'bulk'") == 1_000)
        #expect(try count(context, "Note", "title BEGINSWITH 'bulk' AND rank == 6") == 142)
        // A default fills what a dictionary leaves out; the keys go on after the ones saved before.
        let plain = try context.execute(BatchInsertRequest(entityName: "Note", objects: [["title": "plain"]]))
        #expect(plain.count == 1 && plain.objectIDs == nil)
        #expect(try count(context, "Note", "title == 'plain' AND rank == 0") == 1)
        let saved = try context.insertNewObject(forEntityName: "Note")
        try context.save()
        #expect(try count(context, "Note") == 1_012)
        #expect(saved.objectID.primaryKey ?? 0 > 1_010)

        for (objects, says) in [([["name": NSNull()]], "object 0: 'name' is required"), ([["name": "a"], ["name": 5]], "object 1"),
                                ([["name": "a", "notes": NSNull()]], "not a stored attribute")] as [([[String: Any]], String)] {
            #expect { try context.execute(BatchInsertRequest(entityName: "Tag", objects: objects)) } throws: { "\($0)".contains(says) }
        }
        #expect(try count(context, "Tag") == 2)
    }

    @Test func insertingTakesNullAsNoValueAndConvertsOtherNumbers() throws {
        let folder = try TemporaryFolder()
        let context = try Self.populated(folder)
        let objects: [[String: Any]] = [["title": NSNull(), "rank": 5], ["title": "double", "rank": 2.0], ["title": "flag", "rank": true],
                                        ["title": "text" as Substring]]
        let request = BatchInsertRequest(entityName: "Note", objects: objects)
        request.resultType = .objectIDs
        let ids = try #require(try context.execute(request).objectIDs)
        let notes = try ids.map { try context.existingObject(with: $0) }
        #expect(notes.map { $0.value(forKey: "title") as? String } == [nil, "double", "flag", "text"])
        #expect(notes.map { $0.value(forKey: "rank") as? Int64 } == [5, 2, 1, 0])
        #expect { try context.execute(BatchInsertRequest(entityName: "Note", objects: [["rank": 2.5]])) } throws: { "\($0)".contains("no Integer 64 for 'rank'") }
        #expect { try context.execute(BatchInsertRequest(entityName: "Note", objects: [["rank": NSNull()]])) } throws: { "\($0)".contains("'rank' is required") }
    }

    @Test func markerFilesFollowAndOtherStoresRefuse() throws {
        let folder = try TemporaryFolder()
        let markers = MarkerTests()
        let context = try markers.open(folder.file("marked.sqlite"))
        for title in ["Salsa", "Guacamole", "Soup"] {
            try context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title")
        }
        try context.save()
        try markers.flush(context)
        #expect(try markers.markers(context).count == 3)
        let update = BatchUpdateRequest(entityName: "Note")
        update.predicate = try QueryPredicate(format: "title == 'Soup'")
        update.propertiesToUpdate = ["title": "Stew"]
        _ = try context.execute(update)
        _ = try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Note", predicate: try QueryPredicate(format: "title == 'Salsa'"))))
        try markers.flush(context)
        let titles = try markers.markers(context).values.compactMap { $0.values["title"] as? String }.sorted()
        #expect(titles == ["Guacamole", "Stew"])
        _ = try context.execute(BatchInsertRequest(entityName: "Note", objects: [["title": "Tacos"]]))
        try markers.flush(context)
        #expect(try markers.markers(context).values.compactMap { $0.values["title"] as? String }.sorted() == ["Guacamole", "Stew", "Tacos"])

        let memory = try TestStack.context(model: Self.model(), at: nil)
        #expect { try memory.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Note"))) } throws: { "\($0)".contains("SQLite stores only") }
    }
}

import Foundation
import Testing
@testable import LimelightData

/// Contexts whose parent is a context: they read their ancestors' unsaved changes as the store,
/// save into the parent, and reach the store only when the root saves. Real SQLite files; each
/// context on its own queue.
@Suite struct NestedContextTests {
    /// A root context over a new store holding Ada (with a photo) and Grace; their IDs by name.
    static func root(_ folder: TemporaryFolder, model: ManagedObjectModel = PhotoModel.make())
        throws -> (ManagedObjectContext, [String: ManagedObjectID]) {
        let root = try PhotoModel.stack(at: folder.file("photos.sqlite"), model: model)
        let ids = try root.performAndWait { () throws -> [String: ManagedObjectID] in
            let ada = try root.insertNewObject(forEntityName: "Person"), grace = try root.insertNewObject(forEntityName: "Person")
            ada.setValue("Ada", forKey: "firstName")
            grace.setValue("Grace", forKey: "firstName")
            let photo = try root.insertNewObject(forEntityName: "Photo")
            photo.setValue("Engine", forKey: "name")
            photo.setValue(ada, forKey: "photographer")
            try root.save()
            return ["Ada": ada.objectID, "Grace": grace.objectID, "Engine": photo.objectID]
        }
        return (root, ids)
    }

    static func child(of parent: ManagedObjectContext) -> ManagedObjectContext {
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        return child
    }

    /// What the store file holds, read through a coordinator of its own: first names, sorted.
    static func savedNames(_ folder: TemporaryFolder, entity: String = "Person", key: String = "firstName") throws -> [String] {
        let reader = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        return try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: entity)).compactMap { $0.value(forKey: key) as? String }.sorted()
        }
    }

    static func names(_ objects: [ManagedObject]) -> [String] {
        objects.compactMap { $0.value(forKey: "firstName") as? String }
    }

    @Test func aChildSeesItsParentsUnsavedChanges() throws {
        let folder = try TemporaryFolder()
        let (root, ids) = try Self.root(folder)
        let hedy = try root.performAndWait { () throws -> ManagedObjectID in
            try root.existingObject(with: try #require(ids["Ada"])).setValue("Augusta", forKey: "firstName")
            root.delete(try root.existingObject(with: try #require(ids["Grace"])))
            let hedy = try root.insertNewObject(forEntityName: "Person")
            hedy.setValue("Hedy", forKey: "firstName")
            return hedy.objectID
        }
        let child = Self.child(of: root)
        #expect(child.persistentStoreCoordinator === root.persistentStoreCoordinator)
        try child.performAndWait {
            let sorted = FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [QuerySortDescriptor(key: "firstName")])
            #expect(Self.names(try child.fetch(sorted)) == ["Augusta", "Hedy"])
            let onA = FetchRequest<ManagedObject>(entityName: "Person", predicate: try QueryPredicate(format: "firstName BEGINSWITH 'A'"))
            #expect(Self.names(try child.fetch(onA)) == ["Augusta"])
            // Ada no longer matches by her old name, though the store still says so.
            let byOldName = FetchRequest<ManagedObject>(entityName: "Person", predicate: try QueryPredicate(format: "firstName == 'Ada'"))
            #expect(try child.fetch(byOldName).isEmpty)
            #expect(try child.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 2)
            #expect(try child.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Person")).count == 2)
            sorted.fetchLimit = 1
            #expect(Self.names(try child.fetch(sorted)) == ["Augusta"])
            #expect(try child.existingObject(with: try #require(ids["Ada"])).value(forKey: "firstName") as? String == "Augusta")
            #expect(child.object(with: hedy).value(forKey: "firstName") as? String == "Hedy")
            #expect(throws: PersistenceError.self) { try child.existingObject(with: try #require(ids["Grace"])) }
            // Nothing of it is the child's own change.
            #expect(!child.hasChanges)
        }
        #expect(try Self.savedNames(folder) == ["Ada", "Grace"])
    }

    @Test func aChildsSaveReachesTheStoreOnlyWhenItsParentSaves() throws {
        let folder = try TemporaryFolder()
        let (root, ids) = try Self.root(folder)
        let child = Self.child(of: root)
        var heard = 0
        root.performAndWait { _ = root.addObserver { event, _ in if case .objectsDidChange = event { heard += 1 } } }
        let sunset = try child.performAndWait { () throws -> ManagedObject in
            let ada = try child.existingObject(with: try #require(ids["Ada"]))
            ada.setValue("Lovelace", forKey: "lastName")
            let photo = try child.insertNewObject(forEntityName: "Photo")
            photo.setValue("Sunset", forKey: "name")
            photo.setValue(ada, forKey: "photographer")
            child.delete(try child.existingObject(with: try #require(ids["Grace"])))
            try child.save()
            #expect(!child.hasChanges)
            #expect(photo.objectID.isTemporaryID)
            return photo
        }
        // The store has none of it; the parent has all of it, unsaved.
        #expect(try Self.savedNames(folder) == ["Ada", "Grace"])
        #expect(try Self.savedNames(folder, entity: "Photo", key: "name") == ["Engine"])
        try root.performAndWait {
            #expect(root.hasChanges && heard == 1)
            let ada = try root.existingObject(with: try #require(ids["Ada"]))
            #expect(ada.value(forKey: "lastName") as? String == "Lovelace")
            let photos = try root.fetch(FetchRequest<ManagedObject>(entityName: "Photo", sortDescriptors: [QuerySortDescriptor(key: "name")]))
            #expect(photos.compactMap { $0.value(forKey: "name") as? String } == ["Engine", "Sunset"])
            #expect((photos[1].value(forKey: "photographer") as? ManagedObject) === ada)
            #expect((ada.value(forKey: "photos") as? Set<ManagedObject>)?.count == 2)
            #expect(root.registeredObject(for: try #require(ids["Grace"]))?.isDeleted == true)
            try root.save()
        }
        #expect(try Self.savedNames(folder) == ["Ada"])
        #expect(try Self.savedNames(folder, entity: "Photo", key: "name") == ["Engine", "Sunset"])
        // The child's new object takes its permanent ID when the child next reads from its parent.
        try child.performAndWait {
            let photos = try child.fetch(FetchRequest<ManagedObject>(entityName: "Photo", predicate: try QueryPredicate(format: "name == 'Sunset'")))
            #expect(photos.count == 1 && photos.first === sunset)
            #expect(!sunset.objectID.isTemporaryID)
            // And saves through the parent under it.
            sunset.setValue(Int16(5), forKey: "rating")
            try child.save()
        }
        try root.performAndWait { try root.save() }
        let reader = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        try reader.performAndWait {
            let id = try #require(reader.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: sunset.objectID.uriRepresentation()))
            let saved = try reader.existingObject(with: id)
            #expect(saved.value(forKey: "rating") as? Int16 == 5)
            #expect((saved.value(forKey: "photographer") as? ManagedObject)?.objectID.uriString == ids["Ada"]?.uriString)
        }
    }

    @Test func anObjectTheParentMadeIsTheSameObjectAfterTheParentSaves() throws {
        let folder = try TemporaryFolder()
        let (root, _) = try Self.root(folder)
        try root.performAndWait { try root.insertNewObject(forEntityName: "Person").setValue("Hedy", forKey: "firstName") }
        let child = Self.child(of: root)
        let hedy = try child.performAndWait { () throws -> ManagedObject in
            let found = try child.fetch(FetchRequest<ManagedObject>(entityName: "Person", predicate: try QueryPredicate(format: "firstName == 'Hedy'")))
            let hedy = try #require(found.first)
            #expect(hedy.objectID.isTemporaryID)
            return hedy
        }
        try root.performAndWait { try root.save() }
        try child.performAndWait {
            let again = try child.fetch(FetchRequest<ManagedObject>(entityName: "Person", predicate: try QueryPredicate(format: "firstName == 'Hedy'")))
            #expect(again.count == 1 && again.first === hedy)
            #expect(!hedy.objectID.isTemporaryID)
            hedy.setValue("Lamarr", forKey: "lastName")
            try child.save()
        }
        try root.performAndWait {
            #expect(root.updatedObjects.count == 1)
            try root.save()
        }
        #expect(try Self.savedNames(folder, key: "lastName") == ["Lamarr"])
    }

    @Test func aChildSavesItsNewObjectAgainAndThenDeletesIt() throws {
        let folder = try TemporaryFolder()
        let (root, _) = try Self.root(folder)
        let child = Self.child(of: root)
        try child.performAndWait {
            let hedy = try child.insertNewObject(forEntityName: "Person")
            hedy.setValue("Hedy", forKey: "firstName")
            try child.save()
            hedy.setValue("Lamarr", forKey: "lastName")
            try child.save()
        }
        root.performAndWait {
            // Still one new object in the parent, with both saves' values.
            #expect(root.insertedObjects.count == 1 && root.updatedObjects.isEmpty)
            #expect(root.insertedObjects.first?.value(forKey: "lastName") as? String == "Lamarr")
        }
        try child.performAndWait {
            let hedy = try #require(try child.fetch(FetchRequest<ManagedObject>(entityName: "Person", predicate: try QueryPredicate(format: "firstName == 'Hedy'"))).first)
            child.delete(hedy)
            try child.save()
        }
        try root.performAndWait {
            #expect(!root.hasChanges)
            try root.save()
        }
        #expect(try Self.savedNames(folder) == ["Ada", "Grace"])
    }

    @Test func aChildWorksInsideItsParentsPerformAndWait() throws {
        let folder = try TemporaryFolder()
        let (root, ids) = try Self.root(folder)
        let child = Self.child(of: root)
        let adaID = try #require(ids["Ada"])
        // The child reads from and saves into the parent whose queue this thread holds.
        try root.performAndWait {
            try root.existingObject(with: adaID).setValue("Byron", forKey: "lastName")
            try child.performAndWait {
                let ada = try child.existingObject(with: adaID)
                #expect(ada.value(forKey: "lastName") as? String == "Byron")
                ada.setValue("Augusta", forKey: "firstName")
                try child.save()
            }
            #expect(try root.existingObject(with: adaID).value(forKey: "firstName") as? String == "Augusta")
            try root.save()
        }
        #expect(try Self.savedNames(folder) == ["Augusta", "Grace"])
    }

    @Test func childrenOnManyThreadsSaveIntoOneParent() throws {
        let folder = try TemporaryFolder()
        let (root, _) = try Self.root(folder)
        let children = (0..<4).map { _ in Self.child(of: root) }
        for child in children { child.automaticallyMergesChangesFromParent = true }
        DispatchQueue.concurrentPerform(iterations: children.count) { number in
            let child = children[number]
            child.performAndWait {
                for round in 0..<5 {
                    for index in 0..<10 {
                        let person = try? child.insertNewObject(forEntityName: "Person")
                        person?.setValue("child \(number) round \(round) person \(index)", forKey: "firstName")
                    }
                    // Each save reads the parent's state and writes into it while the others do.
                    _ = try? child.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
                    try? child.save()
                }
            }
        }
        try root.performAndWait {
            #expect(root.insertedObjects.count == 200)
            try root.save()
        }
        #expect(try Self.savedNames(folder).count == 202)
        // Every child has heard of every save (merges run on their queues in order).
        for child in children {
            let count = try child.performAndWait { try child.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
            #expect(count == 202)
        }
    }

    @Test func aChildsObjectWithAPermanentIDKeepsItThroughBothSaves() throws {
        let folder = try TemporaryFolder()
        let (root, _) = try Self.root(folder)
        let child = Self.child(of: root)
        let id = try child.performAndWait { () throws -> ManagedObjectID in
            let hedy = try child.insertNewObject(forEntityName: "Person")
            hedy.setValue("Hedy", forKey: "firstName")
            try child.obtainPermanentIDs(for: [hedy])
            #expect(!hedy.objectID.isTemporaryID)
            try child.save()
            return hedy.objectID
        }
        try root.performAndWait {
            #expect(root.registeredObject(for: id)?.isInserted == true)
            try root.save()
        }
        let reader = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let name = try reader.performAndWait { () throws -> String? in
            let translated = try #require(reader.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: id.uriRepresentation()))
            return try reader.existingObject(with: translated).value(forKey: "firstName") as? String
        }
        #expect(name == "Hedy")
    }

    @Test func threeLevelsSaveOneLevelAtATime() throws {
        let folder = try TemporaryFolder()
        let (root, ids) = try Self.root(folder)
        let middle = Self.child(of: root), leaf = Self.child(of: middle)
        try root.performAndWait { try root.existingObject(with: try #require(ids["Ada"])).setValue("Byron", forKey: "lastName") }
        try middle.performAndWait { try middle.existingObject(with: try #require(ids["Grace"])).setValue("Hopper", forKey: "lastName") }
        try leaf.performAndWait {
            let people = try leaf.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [QuerySortDescriptor(key: "firstName")]))
            #expect(people.compactMap { $0.value(forKey: "lastName") as? String } == ["Byron", "Hopper"])
            try leaf.insertNewObject(forEntityName: "Person").setValue("Hedy", forKey: "firstName")
            try leaf.save()
        }
        func countIn(_ context: ManagedObjectContext) throws -> Int {
            try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
        }
        #expect(try countIn(middle) == 3)
        #expect(try countIn(root) == 2)
        try middle.performAndWait { try middle.save() }
        #expect(try countIn(root) == 3)
        #expect(try Self.savedNames(folder).count == 2)
        try root.performAndWait { try root.save() }
        #expect(try Self.savedNames(folder) == ["Ada", "Grace", "Hedy"])
        #expect(try Self.savedNames(folder, key: "lastName") == ["Byron", "Hopper"])
        // The leaf still reads through both: its view of the store is now the saved one.
        #expect(try countIn(leaf) == 3)
    }

    @Test func aFailedOrRolledBackChildLeavesItsParentAsItWas() throws {
        let folder = try TemporaryFolder()
        let (root, ids) = try Self.root(folder)
        let child = Self.child(of: root)
        try child.performAndWait {
            let engine = try child.existingObject(with: try #require(ids["Engine"]))
            engine.setValue(Int16(9), forKey: "rating")   // the model allows 0...5
            engine.setValue("Difference Engine", forKey: "name")
            #expect(throws: ValidationError.self) { try child.save() }
            #expect(child.hasChanges)
            child.rollback()
            #expect(engine.value(forKey: "name") as? String == "Engine")
        }
        let engineID = try #require(ids["Engine"])
        let name = try root.performAndWait { () throws -> String? in
            #expect(!root.hasChanges)
            return try root.existingObject(with: engineID).value(forKey: "name") as? String
        }
        #expect(name == "Engine")
    }

    @Test func aCascadeInTheChildReachesTheStoreThroughTheParent() throws {
        let folder = try TemporaryFolder()
        let model = PhotoModel.make()
        let photos = try #require(model.entity(named: "Person")?.ownProperties.first { $0.name == "photos" } as? RelationshipDescription)
        photos.deleteRule = .cascade
        let (root, ids) = try Self.root(folder, model: model)
        let child = Self.child(of: root)
        try child.performAndWait {
            child.delete(try child.existingObject(with: try #require(ids["Ada"])))
            #expect(child.deletedObjects.count == 2)
            try child.save()
        }
        try root.performAndWait {
            #expect(root.deletedObjects.count == 2)
            #expect(try root.count(for: FetchRequest<ManagedObject>(entityName: "Photo")) == 0)
            try root.save()
        }
        #expect(try Self.savedNames(folder) == ["Grace"])
        #expect(try Self.savedNames(folder, entity: "Photo", key: "name").isEmpty)
    }

    @Test func childrenMergeTheirParentsAndSiblingsSaves() throws {
        let folder = try TemporaryFolder()
        let (root, ids) = try Self.root(folder)
        let editor = Self.child(of: root), viewer = Self.child(of: root)
        viewer.automaticallyMergesChangesFromParent = true
        #expect(viewer.automaticallyMergesChangesFromParent && !editor.automaticallyMergesChangesFromParent)
        let ada = try viewer.performAndWait { () throws -> ManagedObject in
            let ada = try viewer.existingObject(with: try #require(ids["Ada"]))
            #expect(ada.value(forKey: "firstName") as? String == "Ada")
            return ada
        }
        // A sibling's save into the parent arrives.
        try editor.performAndWait {
            try editor.existingObject(with: try #require(ids["Ada"])).setValue("Augusta", forKey: "firstName")
            try editor.save()
        }
        viewer.performAndWait { #expect(ada.value(forKey: "firstName") as? String == "Augusta") }
        // So does the parent's own save, with its new objects under their permanent IDs.
        var inserted: [ManagedObject] = []
        viewer.performAndWait {
            _ = viewer.addObserver { event, changes in if case .objectsDidChange = event { inserted += changes.inserted } }
        }
        try root.performAndWait {
            try root.existingObject(with: try #require(ids["Ada"])).setValue("Byron", forKey: "lastName")
            try root.insertNewObject(forEntityName: "Person").setValue("Hedy", forKey: "firstName")
            try root.save()
        }
        viewer.performAndWait {
            #expect(ada.value(forKey: "lastName") as? String == "Byron")
            #expect(inserted.count == 1 && inserted.allSatisfy { !$0.objectID.isTemporaryID })
            #expect(Self.names(inserted) == ["Hedy"])
        }
    }
}

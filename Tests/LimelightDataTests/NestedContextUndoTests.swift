import Foundation
import Testing
@testable import LimelightData

/// Undo with a child context that saved into its parent: each context undoes its own edits. A
/// child's save is not an edit of the parent's, so the parent's undo leaves it; the child's undo
/// takes its edit back in the child, and its next save hands that to the parent.
@Suite struct NestedContextUndoTests {
    private static func stack(_ folder: TemporaryFolder) throws -> (parent: ManagedObjectContext, child: ManagedObjectContext, photo: ManagedObjectID) {
        let parent = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let id = try parent.performAndWait {
            let photo = try parent.insertNewObject(forEntityName: "Photo")
            photo.setValue("Dunes", forKey: "name")
            try parent.save()
            // Only what follows is looked at.
            parent.undoManager?.removeAllActions()
            return photo.objectID
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        return (parent, child, id)
    }

    @Test func theParentsUndoLeavesWhatAChildSaved() throws {
        let folder = try TemporaryFolder()
        let (parent, child, id) = try Self.stack(folder)
        try child.performAndWait {
            child.object(with: id).setValue("Canyon", forKey: "name")
            try child.save()
        }
        parent.performAndWait {
            let photo = parent.object(with: id)
            #expect(photo.value(forKey: "name") as? String == "Canyon")
            #expect(parent.undoManager?.canUndo == false)
            parent.undo()
            #expect(photo.value(forKey: "name") as? String == "Canyon")
            // The parent's own edit after the child's save is undone alone.
            photo.setValue("Mesa", forKey: "name")
            parent.processPendingChanges()
            parent.undo()
            #expect(photo.value(forKey: "name") as? String == "Canyon")
        }
    }

    @Test func theChildsUndoAfterItsSaveReachesTheParentAtItsNextSave() throws {
        let folder = try TemporaryFolder()
        let (parent, child, id) = try Self.stack(folder)
        try child.performAndWait {
            let photo = child.object(with: id)
            photo.setValue("Canyon", forKey: "name")
            try child.save()
            #expect(child.undoManager?.canUndo == true)
            child.undo()
            #expect(photo.value(forKey: "name") as? String == "Dunes")
            #expect(child.hasChanges)
        }
        parent.performAndWait { #expect(parent.object(with: id).value(forKey: "name") as? String == "Canyon") }
        try child.performAndWait { try child.save() }
        try parent.performAndWait {
            #expect(parent.object(with: id).value(forKey: "name") as? String == "Dunes")
            try parent.save()
        }
        let reopened = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let saved = try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Photo"))
        #expect(saved.map { $0.value(forKey: "name") as? String } == ["Dunes"])
    }
}

// Saves inserts, updates and deletes in a loop until killed, or for ROUNDS rounds; the marker
// crash test kills it with SIGKILL at random moments and checks the store and its markers
// afterwards, and the cross-process test runs two at once on one store.
import Foundation
import LimelightData

enum StressModel {
    static func make() -> ManagedObjectModel {
        let title = AttributeDescription(name: "title", type: .string)
        title.isIndexedBySpotlight = true
        title.isStoredInExternalRecord = true
        let body = AttributeDescription(name: "body", type: .string)
        body.isIndexedBySpotlight = true
        let note = EntityDescription(name: "Note", properties: [title, body, AttributeDescription(name: "count", type: .integer64)])
        return ManagedObjectModel(entities: [note])
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: limelight-stress STORE [ROUNDS]\n".utf8))
    exit(2)
}
let rounds = arguments.count >= 3 ? Int(arguments[2]) : nil
do {
    let coordinator = try PersistentStoreCoordinator(managedObjectModel: StressModel.make())
    try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: arguments[1]),
                                       options: [StoreOption.externalRecordExtension: "note"])
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    context.undoManager = nil
    var generator = SystemRandomNumberGenerator()
    var round = 0
    while rounds.map({ round < $0 }) ?? true {
        round += 1
        let existing = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
        for _ in 0..<Int.random(in: 1...5, using: &generator) {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue("note \(round)-\(Int.random(in: 0...999, using: &generator))", forKey: "title")
            note.setValue("body \(round)", forKey: "body")
        }
        for note in existing.shuffled(using: &generator).prefix(3) {
            note.setValue("edited \(round)", forKey: "title")
        }
        for note in existing.shuffled(using: &generator).prefix(existing.count > 40 ? 4 : 1) where !note.isDeleted {
            context.delete(note)
        }
        do {
            try context.save()
        } catch PersistenceError.conflict {
            // Another process changed or deleted one of these objects first: start from its state.
            context.rollback()
            context.reset()
            continue
        }
        if round % 20 == 0 { context.reset() }
    }
    // Done: markers on disk before exiting, so the caller can compare them with the store.
    try coordinator.flushExternalRecords()
} catch {
    FileHandle.standardError.write(Data("limelight-stress: \(error)\n".utf8))
    exit(1)
}

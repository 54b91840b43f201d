import Foundation
import Testing
@testable import LimelightData

/// Contexts on queues of their own sharing one coordinator, all working at once: saves racing
/// saves, merges arriving while contexts read and write, children saving into one parent, readers
/// pinned to a query generation, typed properties first used on several threads. Real SQLite
/// files and real threads; each test is bounded by its iteration counts. Run under
/// ThreadSanitizer too (`make test-tsan`), which is where a missing lock shows.
@Suite struct ConcurrentContextsTests {
    static let writers = 4
    static let savesPerWriter = 25

    /// Runs `body(i)` for each `i` on a thread of its own, all at once, and waits for all.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                body(index)
                group.leave()
            }
            thread.start()
        }
        group.wait()
    }

    static func coordinator(_ folder: TemporaryFolder) throws -> PersistentStoreCoordinator {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"))
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func count(_ context: ManagedObjectContext, _ entity: String) throws -> Int {
        try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: entity)) }
    }

    @Test func writersSavingAtOnceWhileReadersMergeLoseNothing() throws {
        let folder = try TemporaryFolder()
        let coordinator = try Self.coordinator(folder)
        let readers = (0..<2).map { _ in Self.context(coordinator) }
        for reader in readers { reader.automaticallyMergesChangesFromParent = true }
        let failures = Failures()
        Self.onThreads(Self.writers + readers.count) { index in
            if index < Self.writers {
                let writer = Self.context(coordinator)
                for save in 0..<Self.savesPerWriter {
                    failures.record {
                        try writer.performAndWait {
                            let person = try writer.insertNewObject(forEntityName: "Person")
                            person.setValue("writer \(index) save \(save)", forKey: "firstName")
                            try writer.save()
                        }
                    }
                }
            } else {
                // Readers fetch (and so register objects) while merges of the writers' saves
                // arrive on their queues.
                let reader = readers[index - Self.writers]
                for _ in 0..<Self.savesPerWriter {
                    failures.record {
                        try reader.performAndWait {
                            let people = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
                            for person in people { _ = person.value(forKey: "firstName") }
                        }
                    }
                }
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try Self.count(Self.context(coordinator), "Person") == Self.writers * Self.savesPerWriter)
        for reader in readers {
            // Every merge queued by the saves has run once this does.
            let names = try reader.performAndWait {
                try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "firstName") as? String }
            }
            #expect(Set(names).count == Self.writers * Self.savesPerWriter)
        }
    }

    @Test func childrenSavingIntoOneParentAtOnceLoseNothing() throws {
        let folder = try TemporaryFolder()
        let coordinator = try Self.coordinator(folder)
        let parent = Self.context(coordinator)
        let failures = Failures()
        Self.onThreads(Self.writers) { index in
            let child = ManagedObjectContext(concurrencyType: .privateQueue)
            child.parent = parent
            for save in 0..<Self.savesPerWriter {
                failures.record {
                    try child.performAndWait {
                        let photo = try child.insertNewObject(forEntityName: "Photo")
                        photo.setValue("child \(index) photo \(save)", forKey: "name")
                        try child.save()
                    }
                }
                if save % 5 == 4 {
                    failures.record { try parent.performAndWait { try parent.save() } }
                }
            }
        }
        try parent.performAndWait { try parent.save() }
        #expect(failures.all.isEmpty)
        #expect(try Self.count(Self.context(coordinator), "Photo") == Self.writers * Self.savesPerWriter)
    }

    @Test func typedPropertiesFirstUsedOnSeveralThreadsAtOnceReadTheirOwnValues() throws {
        let folder = try TemporaryFolder()
        // A model of its own: its entities' tables of `@Managed` declarations start empty, so the
        // threads below learn them at the same time.
        let coordinator = try Self.coordinator(folder)
        let failures = Failures()
        Self.onThreads(Self.writers) { index in
            let context = Self.context(coordinator)
            failures.record {
                try context.performAndWait {
                    for number in 0..<50 {
                        let person = try Person(context: context)
                        person.firstName = "first \(index) \(number)"
                        person.lastName = "last \(index) \(number)"
                        let photo = try Photo(context: context)
                        photo.name = "photo \(index) \(number)"
                        photo.rating = Int16(number % 6)
                        photo.photographer = person
                        guard person.firstName == "first \(index) \(number)", photo.photographer === person,
                              person.photos.contains(photo), photo.rating == Int16(number % 6) else {
                            throw ConcurrencyTestError("thread \(index) read another value back at \(number)")
                        }
                    }
                    try context.save()
                }
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try Self.count(Self.context(coordinator), "Photo") == Self.writers * 50)
    }

    @Test func aReaderPinnedToAGenerationSeesOneSnapshotWhileOthersSave() throws {
        let folder = try TemporaryFolder()
        let coordinator = try Self.coordinator(folder)
        let seed = Self.context(coordinator)
        try seed.performAndWait {
            for number in 0..<10 { try seed.insertNewObject(forEntityName: "Person").setValue("seed \(number)", forKey: "firstName") }
            try seed.save()
        }
        let pinned = Self.context(coordinator)
        try pinned.performAndWait { try pinned.setQueryGenerationFrom(.current) }
        let pinnedCount = try Self.count(pinned, "Person")
        let failures = Failures()
        let counts = Counts()
        Self.onThreads(Self.writers + 1) { index in
            if index < Self.writers {
                let writer = Self.context(coordinator)
                for save in 0..<Self.savesPerWriter {
                    failures.record {
                        try writer.performAndWait {
                            try writer.insertNewObject(forEntityName: "Person").setValue("\(index).\(save)", forKey: "firstName")
                            try writer.save()
                        }
                    }
                }
            } else {
                for _ in 0..<Self.savesPerWriter {
                    failures.record { counts.add(try Self.count(pinned, "Person")) }
                }
            }
        }
        #expect(failures.all.isEmpty)
        #expect(pinnedCount == 10)
        #expect(counts.all.allSatisfy { $0 == 10 })
        try pinned.performAndWait { try pinned.setQueryGenerationFrom(nil) }
        #expect(try Self.count(pinned, "Person") == 10 + Self.writers * Self.savesPerWriter)
    }

    @Test func objectsLetGoOnAnotherThreadWhileTheirContextMergesLeaveItWhole() throws {
        let folder = try TemporaryFolder()
        let coordinator = try Self.coordinator(folder)
        let reader = Self.context(coordinator)
        reader.automaticallyMergesChangesFromParent = true
        let writer = Self.context(coordinator)
        let ids = try writer.performAndWait { () throws -> [ManagedObjectID] in
            let people = try (0..<20).map { number -> ManagedObject in
                let person = try writer.insertNewObject(forEntityName: "Person")
                person.setValue("person \(number)", forKey: "firstName")
                return person
            }
            try writer.save()
            return people.map(\.objectID)
        }
        let failures = Failures()
        Self.onThreads(2) { index in
            if index == 0 {
                // Saves whose merges reach the reader's queue while the other thread lets go.
                for round in 0..<40 {
                    failures.record {
                        try writer.performAndWait {
                            try writer.existingObject(with: ids[round % ids.count]).setValue("round \(round)", forKey: "lastName")
                            try writer.save()
                        }
                    }
                }
            } else {
                for _ in 0..<40 {
                    // Handed out of the queue, as `performAndWait` lets callers do, and let go here.
                    var held: [ManagedObject]? = reader.performAndWait { ids.compactMap { try? reader.existingObject(with: $0) } }
                    if held?.count != ids.count { failures.record { throw ConcurrencyTestError("an object could not be read") } }
                    held = nil
                    _ = held
                }
            }
        }
        #expect(failures.all.isEmpty)
        let names = try reader.performAndWait { try ids.map { try reader.existingObject(with: $0).value(forKey: "firstName") as? String } }
        #expect(names == (0..<20).map { "person \($0)" })
    }

    @Test func storesAddedAndRemovedWhileOtherThreadsLookThemUp() throws {
        let folder = try TemporaryFolder()
        let coordinator = try Self.coordinator(folder)
        let writer = Self.context(coordinator)
        let uri = try writer.performAndWait { () throws -> URL in
            try writer.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            try writer.save()
            return try #require(writer.registeredObjects.first).objectID.uriRepresentation()
        }
        let storeURL = folder.file("photos.sqlite")
        let failures = Failures()
        Self.onThreads(3) { index in
            for round in 0..<200 {
                failures.record {
                    if index == 0 {
                        // A second store comes and goes.
                        let store = try coordinator.addPersistentStore(type: .inMemory)
                        coordinator.remove(store)
                    } else {
                        guard coordinator.managedObjectID(forURIRepresentation: uri) != nil,
                              coordinator.persistentStore(for: storeURL) != nil,
                              !coordinator.persistentStores.isEmpty else {
                            throw ConcurrencyTestError("round \(round): the first store was not found")
                        }
                    }
                }
            }
        }
        #expect(failures.all.isEmpty)
        #expect(coordinator.persistentStores.count == 1)
    }
}

/// Errors thrown on the tests' threads, collected for the test to check on its own.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []

    func record(_ body: () throws -> Void) {
        do { try body() } catch { lock.withLock { errors.append(error) } }
    }

    var all: [any Error] { lock.withLock { errors } }
}

/// Numbers the tests' threads report.
final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var numbers: [Int] = []

    func add(_ number: Int) { lock.withLock { numbers.append(number) } }
    var all: [Int] { lock.withLock { numbers } }
}

struct ConcurrencyTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

import Foundation
import Testing
import LimelightData

/// An incremental store as Core Data drives one: fetched objects are faults that ask for their
/// values when read, every call names the asking context, contexts say which objects they hold,
/// saves check versions, and a fault the store cannot fulfil is reported without ending anything.
struct IncrementalStoreFaultingTests {
    static func products(_ context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: "Product", sortDescriptors: [QuerySortDescriptor(key: "name")]))
    }

    static func context(on coordinator: PersistentStoreCoordinator?) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Products fetched in a context that is gone when this returns: they outlive it.
    static func productsOfAPassingContext(on coordinator: PersistentStoreCoordinator?) throws -> [ManagedObject] {
        try products(context(on: coordinator))
    }

    @Test(arguments: [false, true])
    func fetchedObjectsAreFaultsThatAskForTheirValuesWhenRead(answersWithObjects: Bool) throws {
        let folder = try TemporaryFolder()
        let (context, store) = try LedgerStore.open(at: folder.file("ledger"), answersWithObjects: answersWithObjects)
        let products = try Self.products(context)
        #expect(products.count == 3)
        #expect(products.allSatisfy { $0.isFault && $0.managedObjectContext === context })
        #expect(store.valueRequests.isEmpty, "a fetch asks for no values")

        #expect(products[1].value(forKey: "name") as? String == "saffron")
        #expect(store.valueRequests == ["p-2"], "reading a property fires that object's fault alone")
        #expect(!products[1].isFault && products[0].isFault && products[2].isFault)
        #expect(products[1].value(forKey: "price") as? Double == 12.0)
        #expect(store.valueRequests == ["p-2"], "a loaded object is not asked for again")

        let again = try Self.products(context)
        #expect(again[1] === products[1] && !again[1].isFault)
        #expect(store.valueRequests == ["p-2"], "fetching a loaded object again does not ask for its values")
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Product")) == 3)
        #expect(Set(store.askers.map(\.call)) == ["fetch", "values"])
        #expect(store.askers.allSatisfy { $0.context == ObjectIdentifier(context) }, "every call names the asking context")
    }

    @Test func relationshipFaultsAskWhenUsedAndTheirObjectsFireOneByOne() throws {
        let folder = try TemporaryFolder()
        let (context, store) = try LedgerStore.open(at: folder.file("ledger"))
        let products = try Self.products(context)
        let shelf = try #require(products[0].value(forKey: "shelf") as? ManagedObject)
        #expect(store.valueRequests == ["p-1"])
        #expect(shelf.isFault, "the to-one's object is a fault until it is read")
        #expect(store.relationshipRequests.isEmpty)

        let members = try #require(shelf.value(forKey: "products") as? Set<ManagedObject>)
        #expect(members.count == 3)
        #expect(store.valueRequests == ["p-1", "shelf-1"])
        #expect(store.relationshipRequests == ["shelf-1.products"], "the to-many the node left out is asked for when used")
        let vanilla = try #require(members.first { $0.objectID == products[2].objectID })
        #expect(vanilla.value(forKey: "name") as? String == "vanilla")
        #expect(store.valueRequests == ["p-1", "shelf-1", "p-3"], "a member's fault fires alone, not with its siblings")
        #expect(products[1].isFault)
        _ = shelf.value(forKey: "products")
        #expect(store.relationshipRequests == ["shelf-1.products"], "a loaded to-many is not asked for again")
        #expect(store.askers.allSatisfy { $0.context == ObjectIdentifier(context) })
    }

    @Test func refreshedObjectsAskForTheirValuesAgain() throws {
        let folder = try TemporaryFolder()
        let (context, store) = try LedgerStore.open(at: folder.file("ledger"))
        let products = try Self.products(context)
        let cumin = products[0]
        #expect(cumin.value(forKey: "price") as? Double == 3.5)
        store.records["p-1"]?.values["price"] = 4.0
        store.records["p-1"]?.version += 1
        #expect(cumin.value(forKey: "price") as? Double == 3.5, "a loaded object keeps its values")

        context.refresh(cumin, mergeChanges: false)
        #expect(cumin.isFault)
        #expect(store.valueRequests == ["p-1"], "turning into a fault asks for nothing")
        #expect(cumin.value(forKey: "price") as? Double == 4.0)
        #expect(store.valueRequests == ["p-1", "p-1"])

        #expect(products[1].value(forKey: "name") as? String == "saffron")
        context.refreshAllObjects()
        #expect(products.allSatisfy { $0.isFault })
        #expect(products[1].value(forKey: "name") as? String == "saffron")
        #expect(store.valueRequests == ["p-1", "p-1", "p-2", "p-2"])

        // A fetch that refreshes refetched objects asks for the loaded ones again, only those.
        store.records["p-2"]?.values["name"] = "saffron threads"
        store.records["p-2"]?.version += 1
        let request = FetchRequest<ManagedObject>(entityName: "Product")
        request.shouldRefreshRefetchedObjects = true
        let refetched = try context.fetch(request)
        #expect(store.valueRequests == ["p-1", "p-1", "p-2", "p-2", "p-2"])
        #expect(refetched[1] === products[1] && products[1].value(forKey: "name") as? String == "saffron threads")
        #expect(store.unregistrations.isEmpty, "refreshing is not letting go")
    }

    @Test func contextsSayWhichObjectsTheyHoldAndWhenTheyLetGo() throws {
        let folder = try TemporaryFolder()
        let (context, store) = try LedgerStore.open(at: folder.file("ledger"))
        var products: [ManagedObject]? = try Self.products(context)
        #expect(store.registrations == [["p-1", "p-2", "p-3"]], "a fetch's objects are announced in one call")
        let shelf = try #require(products?[0].value(forKey: "shelf") as? ManagedObject)
        #expect(store.registrations.last == ["shelf-1"])
        if let cumin = products?[0] { context.refresh(cumin, mergeChanges: false) }
        #expect(store.unregistrations.isEmpty, "turning into a fault is not letting go")
        products = nil
        #expect(store.unregistrations.flatMap { $0 }.sorted() == ["p-1", "p-2", "p-3"], "released objects are let go")
        #expect(store.holders == ["p-1": 0, "p-2": 0, "p-3": 0, "shelf-1": 1])

        // Each context counts: a reset lets go of everything the context held.
        let other = Self.context(on: context.persistentStoreCoordinator)
        let held = try Self.products(other)
        #expect(held.allSatisfy { store.holders[store.reference($0.objectID)] == 1 })
        other.reset()
        #expect(held.allSatisfy { store.holders[store.reference($0.objectID)] == 0 && $0.managedObjectContext == nil })

        // So does a context that goes away while its objects live on.
        let survivors = try Self.productsOfAPassingContext(on: context.persistentStoreCoordinator)
        #expect(survivors.count == 3 && survivors.allSatisfy { $0.managedObjectContext == nil })
        #expect(store.holders == ["p-1": 0, "p-2": 0, "p-3": 0, "shelf-1": 1])

        // A deleted object is let go once the deletion is saved; a new one is announced under the
        // ID the store gave it.
        let vanilla = try #require(try Self.products(context).last)
        #expect(store.holders["p-3"] == 1)
        context.delete(vanilla)
        let pepper = try context.insertNewObject(forEntityName: "Product")
        pepper.setValue("pepper", forKey: "name")
        try context.save()
        #expect(store.holders["p-3"] == 0)
        #expect(store.reference(pepper.objectID).hasPrefix("new-"))
        #expect(store.holders[store.reference(pepper.objectID)] == 1)
        #expect(store.holders.values.allSatisfy { $0 >= 0 }, "\(store.holders)")
        #expect(shelf.managedObjectContext === context)
    }

    @Test func aFaultTheStoreCannotFulfilIsReportedAndTheContextStaysUsable() throws {
        let folder = try TemporaryFolder()
        let (context, store) = try LedgerStore.open(at: folder.file("ledger"))
        let products = try Self.products(context)
        store.unreachable = ["p-2"]
        #expect(products[1].value(forKey: "name") == nil, "the values read empty; nothing stops")
        #expect(products[1].isFault && !products[1].isDeleted, "it stays a fault, asked for again when touched")
        #expect(products[1].value(forKey: "price") == nil)
        #expect(store.valueRequests == ["p-2", "p-2"])
        do {
            _ = try context.existingObject(with: products[1].objectID)
            Issue.record("an object the store could not give was handed out")
        } catch let error as LedgerError {
            #expect(error.reason == "the ledger cannot reach p-2")
        }

        // The next save names the object and the store's error, however often it was touched,
        // and keeps the context's changes.
        products[0].setValue(4.0, forKey: "price")
        do {
            try context.save()
            Issue.record("a save went through with a fault the store could not fulfil")
        } catch let error as ValidationError {
            #expect(error.failures.count == 1)
            #expect(error.failures.first?.objectID == products[1].objectID)
            #expect("\(error)".contains("the store could not fulfil the fault: the ledger cannot reach p-2"), "\(error)")
        }
        #expect(products[0].isUpdated && store.records["p-1"]?.values["price"] as? Double == 3.5)

        // Everything else goes on working, and once the store answers the fault fires.
        #expect(products[2].value(forKey: "name") as? String == "vanilla")
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Product")) == 3)
        store.unreachable = []
        #expect(products[1].value(forKey: "name") as? String == "saffron")
        try context.save()
        #expect(store.records["p-1"]?.values["price"] as? Double == 4.0)

        // An object the store says is gone is an inaccessible fault, as a row gone from an SQLite store.
        store.records["p-3"] = nil
        context.refresh(products[2], mergeChanges: false)
        #expect(products[2].value(forKey: "name") == nil)
        #expect(products[2].isDeleted)
        products[0].setValue(4.5, forKey: "price")
        try context.save()
    }

    @Test func aSaveOfAnObjectChangedInTheStoreSinceItWasReadConflicts() throws {
        let folder = try TemporaryFolder()
        let (first, store) = try LedgerStore.open(at: folder.file("ledger"))
        let second = Self.context(on: first.persistentStoreCoordinator)
        let mine = try #require(try Self.products(first).first)
        let theirs = try #require(try Self.products(second).first)
        #expect(mine.value(forKey: "price") as? Double == 3.5 && theirs.value(forKey: "name") as? String == "cumin")

        // A context's own saves count versions as the store does: it can save an object again.
        mine.setValue(4.0, forKey: "price")
        try first.save()
        mine.setValue(4.5, forKey: "price")
        try first.save()
        #expect(store.records["p-1"]?.version == 3)

        theirs.setValue("ground cumin", forKey: "name")
        do {
            try second.save()
            Issue.record("a save over a newer version went through")
        } catch PersistenceError.conflict(let ids) {
            #expect(ids == [theirs.objectID])
        }
        #expect(store.records["p-1"]?.values["name"] as? String == "cumin")
        second.mergePolicy = .mergeByPropertyObjectTrump
        try second.save()
        #expect(store.records["p-1"]?.values["name"] as? String == "ground cumin")
        #expect(store.records["p-1"]?.values["price"] as? Double == 4.5, "the other context's change is kept")
        #expect(store.records["p-1"]?.version == 4)
        #expect(store.askers.filter { $0.call == "save" }.map(\.context) == [ObjectIdentifier(first), ObjectIdentifier(first), ObjectIdentifier(second)])
    }
}

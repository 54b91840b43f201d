import Foundation

/// What a Core Spotlight delegate said about one saved object, in the form the marker journal keeps
/// it until the object's marker is written: a binary property list holding the attribute set, or
/// `excludedFromIndex` when the delegate returned none.
enum SpotlightEntry {
    /// Objects described per transaction when a whole store is described anew.
    static let reindexBatchSize = 500
    static let excludedKey = "excludedFromIndex"

    static func encode(_ set: SearchableItemAttributeSet?) throws -> Data {
        try PropertyListWriter.data(set?.propertyList ?? [excludedKey: true], format: .binary)
    }

    /// The entry as a marker carries it. Throws for bytes that are no entry (a damaged journal row).
    static func decode(_ data: Data) throws -> MarkerContent.SpotlightDescription {
        guard let plist = try PropertyListReader.read(data) as? [String: Any] else {
            throw PersistenceError.invalidRequest("a Spotlight entry in the marker journal is not a dictionary")
        }
        return plist[excludedKey] as? Bool == true ? .excluded : .attributes(SearchableItemAttributeSet(propertyList: plist))
    }

    /// Whether the saves of `store` carry entries: a delegate indexes it.
    static func describes(_ store: PersistentStore) -> CoreDataCoreSpotlightDelegate? {
        guard let delegate = store.spotlightDelegate, delegate.isIndexingEnabled else { return nil }
        return delegate
    }

    static func flagURL(of store: SQLiteStore) throws -> URL {
        guard let configuration = store.externalRecords else {
            throw PersistenceError.store(path: store.path, reason: "the store keeps no marker files")
        }
        return configuration.recordsRoot(storeIdentifier: store.identifier).appendingPathComponent(DescribedStores.flagPath)
    }

    static func markIndexed(_ store: SQLiteStore) throws {
        try AtomicFile.write(Data("A Core Spotlight delegate describes this store's objects in their markers.\n".utf8), to: try flagURL(of: store))
    }

    /// The attribute set a delegate gives by default: what the indexer would take from the store
    /// itself (`IndexedTexts`), each indexed property as an attribute of its own name, the display
    /// name as title.
    static func defaultAttributeSet(for object: ManagedObject) -> SearchableItemAttributeSet {
        let texts = IndexedTexts(of: object)
        var set = SearchableItemAttributeSet(displayName: texts.displayName, title: texts.displayName)
        set.customAttributes = texts.fields
        return set
    }
}

/// Where a records root says a Core Spotlight delegate has described its store: readers of its
/// markers then look in them for attribute sets before reading the store.
package enum DescribedStores {
    /// Relative to the records root.
    package static let flagPath = SupportFolder.name + "/attribute-sets"
}

extension ManagedObjectContext {
    /// Asks the Core Spotlight delegates of the stores being saved to describe the batches' new
    /// and changed objects of indexed entities. Runs before the stores are locked for the save:
    /// a delegate may read related objects, which goes through the coordinator.
    func describeForSpotlight(_ batches: inout [StoreBatch]) throws {
        for index in batches.indices {
            guard let delegate = SpotlightEntry.describes(batches[index].store) else { continue }
            var entries: [ManagedObjectID: Data] = [:]
            for (snapshot, object) in zip(batches[index].changes.inserted, batches[index].insertedObjects)
            where MarkerJournal.isMarked(object.entity) {
                entries[snapshot.id] = try SpotlightEntry.encode(delegate.describe(object))
            }
            for snapshot in batches[index].changes.updated where MarkerJournal.isMarked(snapshot.id.entity) {
                guard let object = registeredObject(for: snapshot.id) else { continue }
                entries[snapshot.id] = try SpotlightEntry.encode(delegate.describe(object))
            }
            batches[index].changes.spotlightEntries = entries
        }
    }
}

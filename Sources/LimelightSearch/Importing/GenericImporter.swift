import Foundation
import LimelightData

/// The model-driven importer used when no program is registered for a marker's extension: it opens
/// the store read-only with the model copy from the records folder and takes every indexed
/// property; an indexed relationship contributes its related objects' indexed attributes.
///
/// Stores stay open between records (one reader per store), since the daemon imports in batches.
public final class GenericImporter {
    private var readers: [String: (context: ManagedObjectContext, elements: ExternalRecordElements)] = [:]
    private let registry: URL?

    /// `registry` is the roots registry markers must lie in (default: the user's).
    public init(registry: URL? = nil) { self.registry = registry }

    /// The registered roots, read once per batch rather than once per record (reading them is a
    /// directory listing and a file per store), with a decoder that remembers what the markers
    /// of a folder share; a marker they do not cover reads the roots again.
    private var cachedDecoder: ExternalRecordPathDecoder?

    private func decoder(fresh: Bool = false) -> ExternalRecordPathDecoder {
        if !fresh, let cachedDecoder { return cachedDecoder }
        let roots = registry.map(ExternalRecordsRegistry.registeredRoots(in:)) ?? ExternalRecordsRegistry.registeredRoots()
        let decoder = ExternalRecordPathDecoder(roots: roots)
        cachedDecoder = decoder
        return decoder
    }

    /// Drops cached store connections and roots, e.g. after a batch, so files can be moved or deleted.
    public func closeStores() {
        readers = [:]
        cachedDecoder = nil
        describedRoots = [:]
    }

    public func importRecord(markerPath: String) throws -> IndexRecord {
        // One marker is a batch of one: the same decoding, refreshing and loading.
        guard let result = importRecords(markerPaths: [markerPath]).first else {
            throw ExternalRecordError(path: markerPath, reason: "not imported")
        }
        return try result.get()
    }

    /// Imports many markers at once, in order, each with its own outcome: the objects of one
    /// store are read with one query per `chunkSize` of them rather than one per record.
    ///
    /// A marker a Core Spotlight delegate described (in a store whose records root says a
    /// delegate indexes it) is indexed as the delegate said, without reading the store.
    public func importRecords(markerPaths: [String], chunkSize: Int = 500) -> [Result<IndexRecord, any Error>] {
        var results = [Result<IndexRecord, any Error>?](repeating: nil, count: markerPaths.count)
        var fromStore: [Int] = []
        for (position, markerPath) in markerPaths.enumerated() {
            do {
                if let described = try describedRecord(markerPath) {
                    results[position] = .success(described)
                    continue
                }
            } catch {
                results[position] = .failure(error)
                continue
            }
            fromStore.append(position)
        }
        let faults = fromStore.map { position in Result { try fault(for: markerPaths[position]) } }
        for (position, object) in zip(fromStore, FaultBatch.load(faults, chunkSize: chunkSize)) {
            let markerPath = markerPaths[position]
            results[position] = object.map { Self.record(for: $0, markerPath: markerPath, storeIdentifier: $0.objectID.storeIdentifier ?? "") }
        }
        return results.map { $0 ?? .failure(ExternalRecordError(path: "", reason: "not imported")) }
    }

    /// Records roots known to hold delegates' descriptions, by path; read once per batch.
    private var describedRoots: [String: Bool] = [:]

    /// The record a Core Spotlight delegate's description in the marker makes, or `nil` when the
    /// object is to be read from its store (no delegate described it).
    private func describedRecord(_ markerPath: String) throws -> IndexRecord? {
        // The records root is two folders up (<root>/<Entity>/<key>.<ext>); cut as text, since
        // this runs for every marker of a bulk run.
        guard let entitySlash = markerPath.utf8.lastIndex(of: UInt8(ascii: "/")),
              let rootSlash = markerPath.utf8[..<entitySlash].lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let root = String(markerPath[..<rootSlash])
        let described = describedRoots[root] ?? {
            let flagged = FileManager.default.fileExists(atPath: root + "/" + DescribedStores.flagPath)
            describedRoots[root] = flagged
            return flagged
        }()
        guard described else { return nil }
        // Decoding checks the marker lies in a registered root, as reading from the store does.
        let elements = try decode(markerPath)
        let content = try MarkerContent.decode(try Data(contentsOf: URL(fileURLWithPath: markerPath)), path: markerPath)
        switch content.spotlight {
        case nil:
            return nil
        case .excluded?:
            return IndexRecord(marker: markerPath, uri: content.objectURI, entity: content.entityName, store: elements.storeIdentifier,
                               excluded: true)
        case .attributes(let set)?:
            return IndexRecord(marker: markerPath, uri: content.objectURI, entity: content.entityName, store: elements.storeIdentifier,
                               displayName: set.displayName ?? set.title, fields: set.searchableTexts)
        }
    }

    /// The marker's object as a fault in its store's context, refreshed if already registered:
    /// another process may have saved since the last batch of this store.
    private func fault(for markerPath: String) throws -> FaultBatch.Item {
        let elements = try decode(markerPath)
        let context = try self.context(for: elements)
        let id = try objectID(elements, in: context)
        if let registered = context.registeredObject(for: id) { context.refresh(registered, mergeChanges: false) }
        return FaultBatch.Item(context: context, object: context.object(with: id))
    }

    private func decode(_ markerPath: String) throws -> ExternalRecordElements {
        do {
            return try decoder().decode(markerPath)
        } catch {
            // Perhaps a store registered since the roots were read.
            return try decoder(fresh: true).decode(markerPath)
        }
    }

    private func objectID(_ elements: ExternalRecordElements, in context: ManagedObjectContext) throws -> ManagedObjectID {
        guard let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: elements.objectURI) else {
            throw ExternalRecordError(path: elements.markerURL.path, reason: "store \(elements.storeURL.path) is not store \(elements.storeIdentifier)")
        }
        return id
    }

    private func context(for elements: ExternalRecordElements) throws -> ManagedObjectContext {
        if let cached = readers[elements.storeIdentifier], cached.elements.storeURL == elements.storeURL { return cached.context }
        let reader = try ExternalRecordReader(elements: elements)
        readers[elements.storeIdentifier] = (reader.context, elements)
        return reader.context
    }

    /// The index record of a live object: indexed properties as fields (`IndexedTexts`), and the
    /// indexed attributes' values for sorting.
    public static func record(for object: ManagedObject, markerPath: String, storeIdentifier: String) -> IndexRecord {
        let texts = IndexedTexts(of: object)
        var values: [String: SortableValue] = [:]
        for property in object.entity.properties where property.isIndexedBySpotlight && property is AttributeDescription {
            if let sortable = sortable(object.value(forKey: property.name)) { values[property.name] = sortable }
        }
        return IndexRecord(marker: markerPath, uri: object.objectID.uriString, entity: object.entity.name,
                           store: storeIdentifier, displayName: texts.displayName, fields: texts.fields, values: values)
    }

    static func sortable(_ value: Any?) -> SortableValue? {
        switch value {
        case let string as String: return .text(string)
        case let date as Date: return .number(date.timeIntervalSinceReferenceDate)
        case let bool as Bool: return .number(bool ? 1 : 0)
        case let number as any BinaryInteger: return .number(Double(number))
        case let number as Double: return .number(number)
        case let number as Float: return .number(Double(number))
        case let number as Decimal: return .number(NSDecimalNumber(decimal: number).doubleValue)
        default: return nil
        }
    }
}

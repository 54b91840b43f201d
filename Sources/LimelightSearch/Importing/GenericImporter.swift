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
    public func importRecords(markerPaths: [String], chunkSize: Int = 500) -> [Result<IndexRecord, any Error>] {
        let faults = markerPaths.map { markerPath in Result { try fault(for: markerPath) } }
        return zip(markerPaths, FaultBatch.load(faults, chunkSize: chunkSize)).map { markerPath, object in
            object.map { Self.record(for: $0, markerPath: markerPath, storeIdentifier: $0.objectID.storeIdentifier ?? "") }
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

    /// The index record of a live object: indexed properties as fields, display name from the
    /// entity's `displayNameKey` user-info entry or its first indexed string.
    public static func record(for object: ManagedObject, markerPath: String, storeIdentifier: String) -> IndexRecord {
        var fields: [String: String] = [:]
        var values: [String: SortableValue] = [:]
        for property in object.entity.properties where property.isIndexedBySpotlight {
            let value = object.value(forKey: property.name)
            if property is RelationshipDescription {
                let related: [ManagedObject]
                switch value {
                case let set as Set<ManagedObject>: related = Array(set)
                case let array as [ManagedObject]: related = array
                case let one as ManagedObject: related = [one]
                default: related = []
                }
                let joined = related.flatMap { other in
                    other.entity.properties.filter { $0.isIndexedBySpotlight && $0 is AttributeDescription }
                        .compactMap { text(of: other.value(forKey: $0.name)) }
                }.joined(separator: " ")
                if !joined.isEmpty { fields[property.name] = joined }
                continue
            }
            if let text = text(of: value) { fields[property.name] = text }
            if let sortable = sortable(value) { values[property.name] = sortable }
        }
        let displayKey = object.entity.userInfo["displayNameKey"]
        let displayName = displayKey.flatMap { text(of: object.value(forKey: $0)) }
            ?? object.entity.properties.first { $0.isIndexedBySpotlight && ($0 as? AttributeDescription)?.attributeType == .string }
                .flatMap { text(of: object.value(forKey: $0.name)) }
        return IndexRecord(marker: markerPath, uri: object.objectID.uriString, entity: object.entity.name,
                           store: storeIdentifier, displayName: displayName, fields: fields, values: values)
    }

    static func text(of value: Any?) -> String? {
        switch value {
        case nil: return nil
        case let string as String: return string.isEmpty ? nil : string
        case let date as Date: return ISO8601Timestamp.string(from: date)
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case is Data: return nil
        case let value?: return "\(value)"
        }
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

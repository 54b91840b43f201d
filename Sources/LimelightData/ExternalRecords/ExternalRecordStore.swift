import Foundation

/// Opens the object a marker stands for, with nothing from the application: the store is opened
/// read-only with the model copy from the records folder.
public final class ExternalRecordReader {
    public let elements: ExternalRecordElements
    public let context: ManagedObjectContext

    public convenience init(markerPath: String, roots: [String: URL] = ExternalRecordsRegistry.registeredRoots()) throws {
        try self.init(elements: ExternalRecordPath.decode(markerPath, roots: roots))
    }

    /// Opens the store of markers already decoded.
    public convenience init(elements: ExternalRecordElements) throws {
        self.init(elements: elements, coordinator: try Self.openStore(of: elements))
    }

    /// Reads through a store opened before with `openStore(of:)`, which a long-running reader
    /// keeps: each reader has its own context, so it sees the store as it is now.
    public init(elements: ExternalRecordElements, coordinator: PersistentStoreCoordinator) {
        self.elements = elements
        context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
    }

    /// The store of `elements`, read-only, with the model its support folder holds.
    public static func openStore(of elements: ExternalRecordElements) throws -> PersistentStoreCoordinator {
        let model = try ManagedObjectModel(contentsOf: elements.modelURL)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: elements.storeURL, options: [StoreOption.readOnly: true])
        return coordinator
    }

    /// The live object, or an error when it no longer exists.
    public func object() throws -> ManagedObject {
        guard let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: elements.objectURI) else {
            throw ExternalRecordError(path: elements.markerURL.path, reason: "the store at \(elements.storeURL.path) is not store \(elements.storeIdentifier)")
        }
        return try context.existingObject(with: id)
    }
}

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
    public init(elements: ExternalRecordElements) throws {
        self.elements = elements
        let model = try ManagedObjectModel(contentsOf: elements.modelURL)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: elements.storeURL, options: [StoreOption.readOnly: true])
        context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
    }

    /// The live object, or an error when it no longer exists.
    public func object() throws -> ManagedObject {
        guard let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: elements.objectURI) else {
            throw ExternalRecordError(path: elements.markerURL.path, reason: "the store at \(elements.storeURL.path) is not store \(elements.storeIdentifier)")
        }
        return try context.existingObject(with: id)
    }
}

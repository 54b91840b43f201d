import Foundation

/// A store class applications can register for a store type of their own: subclasses of
/// `AtomicStore` and `IncrementalStore`, which the coordinator makes with this initializer.
public protocol RegistrableStore: PersistentStore {
    init(persistentStoreCoordinator coordinator: PersistentStoreCoordinator, configurationName: String?,
         at url: URL, options: [String: any Sendable])
    /// Reads a store's metadata without adding it.
    static func metadataForPersistentStore(with url: URL) throws -> [String: Any]
    /// Replaces a store's metadata without adding it.
    static func setMetadata(_ metadata: [String: Any], forPersistentStoreAt url: URL) throws
}

/// Which store class opens stores of which type: the XML store for `.xml`, and what applications
/// register.
final class StoreClassRegistry: @unchecked Sendable {
    static let shared = StoreClassRegistry()
    private let lock = NSLock()
    private var classes: [StoreType: any RegistrableStore.Type] = [.xml: XMLStore.self]

    func storeClass(for type: StoreType) -> (any RegistrableStore.Type)? {
        lock.withLock { classes[type] }
    }

    /// The type `storeClass` is registered for (the first, if several).
    func type(of storeClass: any RegistrableStore.Type) -> StoreType? {
        lock.withLock { classes.first { ObjectIdentifier($0.value) == ObjectIdentifier(storeClass) }?.key }
    }

    func register(_ storeClass: (any RegistrableStore.Type)?, for type: StoreType) {
        lock.withLock { classes[type] = storeClass }
    }

    var registered: [StoreType: any RegistrableStore.Type] {
        lock.withLock { classes }
    }
}

extension PersistentStoreCoordinator {
    /// Makes `addPersistentStore(type:…)` open stores of `type` with `storeClass`, as Core Data's
    /// `registerStoreClass(_:type:)`; nil takes a registration back. `.sqlite` and `.inMemory`
    /// are the framework's own and cannot be given to another class.
    public static func registerStoreClass(_ storeClass: (any RegistrableStore.Type)?, type: StoreType) throws {
        guard type != .sqlite, type != .inMemory else {
            throw PersistenceError.invalidRequest("the \(type) store type is the framework's own; register a class under a type of its own")
        }
        StoreClassRegistry.shared.register(storeClass, for: type)
    }

    /// The store types a coordinator can add besides `.sqlite` and `.inMemory`, with the classes
    /// that open them.
    public static var registeredStoreTypes: [StoreType: any RegistrableStore.Type] {
        StoreClassRegistry.shared.registered
    }
}

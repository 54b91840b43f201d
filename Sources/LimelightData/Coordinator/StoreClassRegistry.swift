import Foundation

/// Which `AtomicStore` subclass opens stores of which type: the XML store for `.xml`, and what
/// applications register.
final class StoreClassRegistry: @unchecked Sendable {
    static let shared = StoreClassRegistry()
    private let lock = NSLock()
    private var classes: [StoreType: AtomicStore.Type] = [.xml: XMLStore.self]

    func storeClass(for type: StoreType) -> AtomicStore.Type? {
        lock.withLock { classes[type] }
    }

    /// The type `storeClass` is registered for (the first, if several).
    func type(of storeClass: AtomicStore.Type) -> StoreType? {
        lock.withLock { classes.first { $0.value == storeClass }?.key }
    }

    func register(_ storeClass: AtomicStore.Type?, for type: StoreType) {
        lock.withLock { classes[type] = storeClass }
    }

    var registered: [StoreType: AtomicStore.Type] {
        lock.withLock { classes }
    }
}

extension PersistentStoreCoordinator {
    /// Makes `addPersistentStore(type:…)` open stores of `type` with `storeClass`, as Core Data's
    /// `registerStoreClass(_:type:)`; nil takes a registration back. `.sqlite` and `.inMemory`
    /// are the framework's own and cannot be given to another class.
    public static func registerStoreClass(_ storeClass: AtomicStore.Type?, type: StoreType) throws {
        guard type != .sqlite, type != .inMemory else {
            throw PersistenceError.invalidRequest("the \(type) store type is the framework's own; register a class under a type of its own")
        }
        StoreClassRegistry.shared.register(storeClass, for: type)
    }

    /// The store types a coordinator can add besides `.sqlite` and `.inMemory`, with the classes
    /// that open them.
    public static var registeredStoreTypes: [StoreType: AtomicStore.Type] {
        StoreClassRegistry.shared.registered
    }
}

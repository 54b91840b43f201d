import Foundation

/// The kind of a store, as Core Data's `NSPersistentStore.StoreType` names it: what
/// `addPersistentStore(type:…)` opens, and what a store's metadata records as `NSStoreType`.
///
/// A struct rather than an enum so that applications can name their own kinds: a subclass of
/// `AtomicStore` registered with `PersistentStoreCoordinator.registerStoreClass(_:type:)`.
public struct StoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Core Data's SQLite store, in its on-disk layout (`NSSQLiteStoreType`).
    public static let sqlite = StoreType(rawValue: "SQLite")
    /// Objects kept in memory only (`NSInMemoryStoreType`).
    public static let inMemory = StoreType(rawValue: "InMemory")
    /// Core Data's XML store (`NSXMLStoreType`): the whole graph in one XML file, read when the
    /// store is added and written at every save.
    public static let xml = StoreType(rawValue: "XML")

    public var description: String { rawValue }
}

import Foundation

/// How a `PersistentContainer` adds one store: its type, file, configuration and options, as
/// Core Data's `NSPersistentStoreDescription`.
public final class PersistentStoreDescription: @unchecked Sendable, CustomStringConvertible {
    public var type: StoreType = .sqlite
    /// The store file; `nil` for a store in memory.
    public var url: URL?
    public var configuration: String?
    /// `StoreOption` keys; the properties below read and write the common ones.
    public private(set) var options: [String: any Sendable] = [:]

    public init(url: URL? = nil) {
        self.url = url
        shouldMigrateStoreAutomatically = true
        shouldInferMappingModelAutomatically = true
    }

    public func setOption(_ value: (any Sendable)?, forKey key: String) {
        options[key] = value
    }

    public var isReadOnly: Bool {
        get { options[StoreOption.readOnly] as? Bool ?? false }
        set { options[StoreOption.readOnly] = newValue }
    }

    /// Whether a store made with an earlier model version is migrated when added (on by default).
    public var shouldMigrateStoreAutomatically: Bool {
        get { options[StoreOption.migratePersistentStoresAutomatically] as? Bool ?? false }
        set { options[StoreOption.migratePersistentStoresAutomatically] = newValue }
    }

    /// Whether that migration's mapping is inferred, a lightweight migration (on by default).
    public var shouldInferMappingModelAutomatically: Bool {
        get { options[StoreOption.inferMappingModelAutomatically] as? Bool ?? false }
        set { options[StoreOption.inferMappingModelAutomatically] = newValue }
    }

    public var description: String {
        "PersistentStoreDescription(\(type.rawValue) \(url?.path ?? "in memory")\(configuration.map { " configuration \($0)" } ?? ""))"
    }
}

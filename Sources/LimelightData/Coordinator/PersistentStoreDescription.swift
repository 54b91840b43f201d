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
    /// Whether `loadPersistentStores(completionHandler:)` adds the store on a background queue
    /// and returns at once, the handler then called on that queue (default `false`: added before
    /// the call returns, the handler called on the caller's thread). A store that needs
    /// migrating, or a large one, keeps the interface responsive this way.
    public var shouldAddStoreAsynchronously = false

    public init(url: URL? = nil) {
        self.url = url
        shouldMigrateStoreAutomatically = true
        shouldInferMappingModelAutomatically = true
    }

    /// Sets (or, with `nil`, removes) the option `key`.
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

    /// How long, in seconds, the store waits for another connection's lock before a read or a
    /// write fails (`StoreOption.timeout`): 5 unless set. (Core Data's default is 240.)
    public var timeout: TimeInterval {
        get {
            switch options[StoreOption.timeout] {
            case let seconds as Double: return seconds
            case let seconds as Int: return TimeInterval(seconds)
            default: return 5
            }
        }
        set { options[StoreOption.timeout] = newValue }
    }

    /// The SQLite pragmas run when the store is opened (`StoreOption.sqlitePragmas`), by name.
    public var sqlitePragmas: [String: any Sendable] {
        (options[StoreOption.sqlitePragmas] as? [String: any Sendable]) ?? [:]
    }

    /// Sets the SQLite pragma `name` to `value` (a number or a string) when the store is opened,
    /// or with `nil` no longer sets it: `setValue("DELETE", forPragmaNamed: "journal_mode")`.
    public func setValue(_ value: (any Sendable)?, forPragmaNamed name: String) {
        var pragmas = sqlitePragmas
        pragmas[name] = value
        options[StoreOption.sqlitePragmas] = pragmas.isEmpty ? nil : pragmas
    }

    public var description: String {
        "PersistentStoreDescription(\(type.rawValue) \(url?.path ?? "in memory")\(configuration.map { " configuration \($0)" } ?? ""))"
    }
}

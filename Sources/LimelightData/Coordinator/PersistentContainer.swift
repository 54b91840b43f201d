import Foundation

/// A model, a coordinator and its stores, with a main-queue context for the interface and private
/// contexts for background work: Core Data's `NSPersistentContainer`, the usual way to set up.
///
/// ```swift
/// let container = try PersistentContainer(name: "Cookbook", modelAt: modelURL)
/// try container.loadPersistentStores()
/// try container.viewContext.save()
/// ```
///
/// The store goes into `PersistentContainer.defaultDirectoryURL()` as `<name>.sqlite` unless
/// `persistentStoreDescriptions` says otherwise before the stores are loaded.
///
/// The class is open, as Core Data's is, because apps subclass it: most often to override
/// `defaultDirectoryURL()` and keep their stores in a folder shared with their other programs.
/// A subclass restates `@unchecked Sendable`, as Swift asks of it.
open class PersistentContainer: @unchecked Sendable {
    public let name: String
    public let managedObjectModel: ManagedObjectModel
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    public var persistentStoreDescriptions: [PersistentStoreDescription]
    /// The context for the interface, on the main queue.
    public let viewContext: ManagedObjectContext

    public init(name: String, managedObjectModel: ManagedObjectModel) throws {
        self.name = name
        self.managedObjectModel = managedObjectModel
        persistentStoreCoordinator = try PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        persistentStoreDescriptions = [PersistentStoreDescription(url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))]
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
        viewContext.name = "viewContext"
    }

    /// A container for the model at `url`: any model `ManagedObjectModel(contentsOf:)` reads.
    public convenience init(name: String, modelAt url: URL) throws {
        try self.init(name: name, managedObjectModel: ManagedObjectModel(contentsOf: url))
    }

    /// A container for the model named `name` in `bundle`, as Core Data's `init(name:)` finds it:
    /// `<name>.momd`, `<name>.mom` or `<name>.xcdatamodeld` among the bundle's resources.
    public convenience init(name: String, bundle: Bundle = .main) throws {
        for ext in ["momd", "mom", "xcdatamodeld"] {
            if let url = bundle.url(forResource: name, withExtension: ext) {
                try self.init(name: name, modelAt: url)
                return
            }
        }
        throw ModelError("no model named \(name) (.momd, .mom or .xcdatamodeld) in the bundle", at: bundle.bundlePath)
    }

    /// Where stores go by default: `$XDG_DATA_HOME/<program name>`, the Linux counterpart of the
    /// application support folder Core Data uses.
    /// A subclass overrides it to keep its stores elsewhere: the container's initializer asks the
    /// class it makes, so the override decides where the first description points.
    open class func defaultDirectoryURL() -> URL {
        XDGDirectories.dataHome.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
    }

    /// Adds a store for every description, creating the folders its file goes in; `handler` hears
    /// of each, with the error that stopped it if any. A description with
    /// `shouldAddStoreAsynchronously` is added on a background queue, where its handler runs;
    /// the others are added, and heard of, before the call returns.
    open func loadPersistentStores(completionHandler handler: @escaping (PersistentStoreDescription, (any Error)?) -> Void) {
        for description in persistentStoreDescriptions {
            persistentStoreCoordinator.addPersistentStore(with: description, completionHandler: handler)
        }
    }

    /// Adds every store before it returns, throwing the first error: the short form of the call
    /// above (descriptions asking to be added asynchronously are added at once too).
    open func loadPersistentStores() throws {
        var failure: (any Error)?
        for description in persistentStoreDescriptions {
            do {
                try persistentStoreCoordinator.addStore(describedBy: description)
            } catch {
                if failure == nil { failure = error }
            }
        }
        if let failure { throw failure }
    }

    /// A new private-queue context on the container's coordinator, for work off the main queue.
    open func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new private-queue context's queue, without waiting.
    open func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.queue.async { block(context) }
    }

    /// Runs `block` on a new private-queue context's queue and returns its result, as Core Data's
    /// `performBackgroundTask(_:) async`: `try await container.performBackgroundTask { try $0.count(for: request) }`.
    open func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }
}

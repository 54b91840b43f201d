import Foundation
import LimelightData

/// A fresh temporary folder, removed when the value goes away: the base of the test targets'
/// scratch folders, which differ only in their name's prefix and their helpers.
open class ScratchFolder {
    public let url: URL

    /// Coordinators whose stores live here, closed before the folder is removed if they are
    /// still alive then. Held weakly: a coordinator let go of earlier has closed its stores itself.
    private var coordinators: [WeakCoordinator] = []

    private struct WeakCoordinator {
        weak var coordinator: PersistentStoreCoordinator?
    }

    /// Makes `<temporary directory>/<prefix><UUID>`.
    public init(prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(prefix + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Has the folder close `coordinator`'s stores before removing itself: a store's marker
    /// writer works on after `save()` returns, and a pass running while the folder is removed
    /// makes its records folder (and so this one) again. Closing a store waits for its writer.
    public final func closeFirst(_ coordinator: PersistentStoreCoordinator) {
        coordinators.append(WeakCoordinator(coordinator: coordinator))
    }

    deinit {
        for coordinator in coordinators.compactMap(\.coordinator) {
            for store in coordinator.persistentStores { coordinator.remove(store) }
        }
        try? FileManager.default.removeItem(at: url)
    }
}

import Synchronization

/// The models coordinators were made with, held weakly: where `ManagedObject.entity()` looks for
/// a class's entity, as Core Data's looks in the models loaded in the process.
///
/// A model joins when a coordinator (so also a container) is made with it, and leaves when
/// nothing else holds it: a model built and dropped, or the models of stores opened and closed
/// again, do not keep answering for their classes.
final class ModelsInUse: Sendable {
    static let shared = ModelsInUse()
    private let models = Mutex<[WeakModel]>([])

    private struct WeakModel {
        weak var model: ManagedObjectModel?
    }

    func add(_ model: ManagedObjectModel) {
        models.withLock { models in
            // Gone ones leave here, so the list is as long as the models alive.
            models.removeAll { $0.model == nil }
            if !models.contains(where: { $0.model === model }) { models.append(WeakModel(model: model)) }
        }
    }

    /// The models in use, in the order they were first used.
    var current: [ManagedObjectModel] {
        models.withLock { models in models.compactMap(\.model) }
    }
}

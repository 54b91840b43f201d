import Foundation

/// The steps a staged migration takes for one store: where in the stages the store's model version
/// is, and each migration and handler from there to the coordinator's model.
///
/// Everything is worked out, and every mistake in the stages found, before the store is touched.
struct StagedMigrationPlan {
    enum Step {
        /// Migrate by inferred mapping (a lightweight stage).
        case inferred(stage: String, from: ManagedObjectModel, to: ManagedObjectModel)
        /// Run the stage's handlers around a migration by inferred mapping (a custom stage).
        case custom(CustomMigrationStage, name: String, from: ManagedObjectModel, to: ManagedObjectModel)
    }

    /// The steps, in order; empty when the store is at the destination model already.
    let steps: [Step]
    /// The model the store was made with.
    let storeModel: ManagedObjectModel

    /// Plans the migration of the store at `url` to `destination` through `stages`. The models
    /// lightweight stages name by checksum are found among the custom stages' models,
    /// `destination` and `sourceModels`.
    init(stages: [MigrationStage], storeAt url: URL, destination: ManagedObjectModel, sourceModels: [ManagedObjectModel]) throws {
        let path = url.path
        let names = stages.enumerated().map { index, stage in Self.name(of: stage, at: index) }
        // Every model the stages can reach, by checksum; the custom stages' models must load.
        try MigrationManager.resolveIfEditable(destination)
        var known: [String: ManagedObjectModel] = [destination.versionChecksum: destination]
        for (index, stage) in stages.enumerated() {
            guard let custom = stage as? CustomMigrationStage else { continue }
            do {
                for reference in [custom.currentModel, custom.nextModel] {
                    let model = try reference.resolve()
                    known[model.versionChecksum] = known[model.versionChecksum] ?? model
                }
            } catch {
                throw MigrationError.noSourceModel(path: path, reason: "stage '\(names[index])' names a model that cannot be used: \(error)")
            }
        }
        for model in sourceModels {
            try MigrationManager.resolveIfEditable(model)
            known[model.versionChecksum] = known[model.versionChecksum] ?? model
        }
        let final = destination.versionChecksum
        // The checksum each stage moves the store to: a custom stage its next model; a
        // lightweight one the model the next stage starts from, or the destination if last.
        let targets: [String] = stages.indices.map { index in
            if let custom = stages[index] as? CustomMigrationStage { return custom.nextModel.versionChecksum }
            guard index + 1 < stages.count else { return final }
            let next = stages[index + 1]
            return (next as? CustomMigrationStage)?.currentModel.versionChecksum ?? next.sourceChecksums.first ?? final
        }
        try Self.checkChain(stages, names: names, targets: targets, final: final, path: path)

        let candidates = known.sorted(by: { $0.key < $1.key }).map(\.value)
        guard let storeModel = try MigrationManager.sourceModel(forStoreAt: url, among: candidates) else {
            let missing = stages.flatMap(\.sourceChecksums).filter { known[$0] == nil }
            throw MigrationError.noSourceModel(path: path, reason: "the store's model version is none of the \(candidates.count) the migration stages know"
                + (missing.isEmpty ? "" : " (no model was given for the versions \(missing.joined(separator: ", ")); give them in StoreOption.migrationSourceModels)"))
        }
        self.storeModel = storeModel
        let start = storeModel.versionChecksum
        guard start != final else {
            steps = []
            return
        }
        guard let first = stages.firstIndex(where: { $0.sourceChecksums.contains(start) })
                ?? targets.firstIndex(of: start).map({ $0 + 1 }) else {
            throw MigrationError.noSourceModel(path: path, reason: "the store's model version \(start) is given, but no migration stage migrates from it")
        }
        var steps: [Step] = []
        var current = storeModel
        for index in first..<stages.count {
            guard let target = known[targets[index]] else {
                throw MigrationError.noSourceModel(path: path, reason: "stage '\(names[index])' migrates to model version \(targets[index]), "
                    + "which none of the models given has; give it in StoreOption.migrationSourceModels")
            }
            if let custom = stages[index] as? CustomMigrationStage {
                steps.append(.custom(custom, name: names[index], from: current, to: target))
            } else if current.versionChecksum != target.versionChecksum {
                steps.append(.inferred(stage: names[index], from: current, to: target))
            }
            current = target
        }
        self.steps = steps
    }

    /// How errors name a stage: its label, else its kind and position.
    static func name(of stage: MigrationStage, at index: Int) -> String {
        if !stage.label.isEmpty { return stage.label }
        return "\(stage is CustomMigrationStage ? "custom" : "lightweight") stage \(index + 1)"
    }

    /// Each stage must start where the one before it ends, and the last end at the destination.
    private static func checkChain(_ stages: [MigrationStage], names: [String], targets: [String], final: String, path: String) throws {
        guard !stages.isEmpty else {
            throw MigrationError.notAllowed(path: path, reason: "the staged migration manager has no stages")
        }
        for (index, stage) in stages.enumerated() {
            if stage.sourceChecksums.isEmpty {
                throw MigrationError.notAllowed(path: path, reason: "stage '\(names[index])' lists no model versions")
            }
            if index > 0, let custom = stage as? CustomMigrationStage, targets[index - 1] != custom.currentModel.versionChecksum {
                throw MigrationError.notAllowed(path: path, reason: "stage '\(names[index])' migrates from model version "
                    + "\(custom.currentModel.versionChecksum), but stage '\(names[index - 1])' ends at \(targets[index - 1])")
            }
        }
        if let last = targets.last, last != final {
            throw MigrationError.notAllowed(path: path, reason: "the last stage, '\(names[names.count - 1])', ends at model version \(last), "
                + "not at the coordinator's model (\(final))")
        }
    }
}

import Foundation

extension CoreDataCoreSpotlightDelegate {
    /// How long `deleteSpotlightIndex()` waits for limelightd, which may be busy with a batch
    /// (a large reconcile takes a while) before it takes the request.
    static let deletionTimeout = 120

    /// The domain of the delegate's items in the index: the store's UUID, as in Core Data, where
    /// it is the default. Documents are filed under it (`store:<UUID>`) and `deleteSpotlightIndex()`
    /// removes them by it. Not overridable here: the index files documents by the store their
    /// marker lies in, whatever the application calls the domain. Empty when the coordinator
    /// has no store at the description's URL.
    public func domainIdentifier() -> String {
        (try? describedStore().identifier) ?? ""
    }

    /// Removes every document of the store from the index, as Core Data's
    /// `deleteSpotlightIndex(completionHandler:)` deletes the store's searchable items. The
    /// handler gets `nil` once they are gone, or the error that stopped it, on a queue of its own.
    ///
    /// limelightd owns the index (it holds Xapian's write lock), so the delegate asks it over its
    /// socket; with no daemon serving `indexURL` the handler gets `SpotlightIndexError.notServed`
    /// and nothing changes.
    ///
    /// The markers stay as they are (they are the store's files, read by `limelight record` and
    /// `open`); the index remembers each of them as kept out, so the daemon does not import them
    /// again at its next start. An object saved later is indexed again, with this delegate's
    /// description while it indexes and from its properties otherwise, as any save without a
    /// delegate is; `reindexAllObjects()` brings every object back (a marker rebuild does not:
    /// it leaves markers in step with their rows as they are). Core Data asks for
    /// `stopSpotlightIndexing()` first and otherwise recreates the index at once; here nothing
    /// is recreated until objects change.
    public func deleteSpotlightIndex(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let storeIdentifier: String
        do {
            storeIdentifier = try describedStore().identifier
        } catch {
            DispatchQueue.global(qos: .utility).async { completionHandler(error) }
            return
        }
        let indexPath = indexURL?.path ?? XDGDirectories.dataHomePath + "/limelight/index"
        DispatchQueue.global(qos: .utility).async {
            completionHandler(Self.removeStore(storeIdentifier, fromIndexAt: indexPath))
        }
    }

    /// `deleteSpotlightIndex(completionHandler:)`, awaited.
    public func deleteSpotlightIndex() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            deleteSpotlightIndex { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Asks limelightd to remove the store's documents; the error, or `nil` once they are gone.
    static func removeStore(_ storeIdentifier: String, fromIndexAt indexPath: String) -> (any Error)? {
        switch IndexRequest.removeStore(storeIdentifier).send(indexPath: indexPath, timeout: deletionTimeout) {
        case .done?:
            return nil
        case .failed(let reason)?:
            return SpotlightIndexError(kind: .failed, indexPath: indexPath, reason: reason)
        case .declined(let reason)?:
            return SpotlightIndexError(kind: .notServed, indexPath: indexPath, reason: "limelightd declined: \(reason)")
        case nil:
            return SpotlightIndexError(kind: .notServed, indexPath: indexPath,
                                       reason: "no limelightd serves this index (start it: systemctl --user start limelightd), or it did not answer within \(deletionTimeout) s; nothing was removed")
        }
    }
}

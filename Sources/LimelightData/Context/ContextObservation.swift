import Foundation

/// Observations of a context's own key paths (`context.observe(\.hasChanges)`), kept by the
/// context while there are any.
final class ContextObservers {
    /// One observation: its key path's value as last reported, and how to read and compare it.
    final class Observation {
        let options: KeyValueObservingOptions
        let read: (ManagedObjectContext) -> Any
        let same: (Any, Any) -> Bool
        let handler: (ManagedObjectContext, ObservedChangeRecord) -> Void
        var last: Any

        init(options: KeyValueObservingOptions, read: @escaping (ManagedObjectContext) -> Any, same: @escaping (Any, Any) -> Bool,
             last: Any, handler: @escaping (ManagedObjectContext, ObservedChangeRecord) -> Void) {
            self.options = options
            self.read = read
            self.same = same
            self.last = last
            self.handler = handler
        }
    }

    var observations: [Observation] = []
}

extension ManagedObjectContext {
    /// Calls `changeHandler` whenever the value of one of the context's key paths changes, as
    /// key-value observing the context does on Apple's platforms; above all `\.hasChanges`, which
    /// applications bind a save button to:
    ///
    /// ```swift
    /// saveButtonToken = context.observe(\.hasChanges, options: [.initial, .new]) { _, change in
    ///     saveButton.isEnabled = change.newValue ?? false
    /// }
    /// ```
    ///
    /// `hasChanges` and the sets of inserted, updated and deleted objects are checked whenever
    /// they may have changed: an object inserted, changed or deleted, and every save, rollback,
    /// reset, undo, redo, refresh and merge; the handler runs then, on the context's queue. A
    /// prior call (`.prior`) comes just before the call after the change, as the context learns
    /// of a change once it is made. Other key paths are read at the same moments only.
    public func observe<Value: Equatable>(_ keyPath: KeyPath<ManagedObjectContext, Value>, options: KeyValueObservingOptions = [],
                                          changeHandler: @escaping (ManagedObjectContext, KeyValueObservedChange<Value>) -> Void) -> KeyValueObservation {
        let observation = ContextObservers.Observation(
            options: options, read: { $0[keyPath: keyPath] },
            same: { old, new in
                guard let old = old as? Value, let new = new as? Value else { return false }
                return old == new
            },
            last: self[keyPath: keyPath],
            handler: { context, record in changeHandler(context, record.typed(as: Value.self)) })
        let table = contextObservers ?? ContextObservers()
        table.observations.append(observation)
        contextObservers = table
        if options.contains(.initial) {
            var record = ObservedChangeRecord()
            if options.contains(.new) { record.newValue = .some(observation.last) }
            observation.handler(self, record)
        }
        // The context holds the observation, not the token: the token ends it, from the
        // context's queue as any use of the context.
        return KeyValueObservation { [weak self, weak observation] in
            guard let self, let table = self.contextObservers, let observation else { return }
            table.observations.removeAll { $0 === observation }
            if table.observations.isEmpty { self.contextObservers = nil }
        }
    }

    /// Where the context's change sets may have changed: observers of its key paths hear of
    /// those that did. A check of one reference when there are none.
    @inline(__always)
    func noteContextChange() {
        if contextObservers != nil { reportContextChanges() }
    }

    private func reportContextChanges() {
        guard let table = contextObservers else { return }
        for observation in table.observations {
            // One ended by an earlier handler of this round is not called.
            guard contextObservers?.observations.contains(where: { $0 === observation }) == true else { continue }
            let now = observation.read(self)
            guard !observation.same(observation.last, now) else { continue }
            let old = observation.last
            observation.last = now
            if observation.options.contains(.prior) {
                var prior = ObservedChangeRecord(isPrior: true)
                if observation.options.contains(.old) { prior.oldValue = .some(old) }
                observation.handler(self, prior)
            }
            var record = ObservedChangeRecord()
            if observation.options.contains(.new) { record.newValue = .some(now) }
            if observation.options.contains(.old) { record.oldValue = .some(old) }
            observation.handler(self, record)
        }
    }
}

extension ManagedObjectContext {
    /// Notes that an undo or redo put back `object`'s state; told to it when the step is done.
    func noteSnapshotEvent(_ event: SnapshotEventType, for object: ManagedObject) {
        let key = ObjectIdentifier(object)
        snapshotEvents[key] = (object, (snapshotEvents[key]?.events ?? []).union(event))
    }

    /// Tells each object an undo or redo touched what it did, once, with every event together.
    func deliverSnapshotEvents() {
        guard !snapshotEvents.isEmpty else { return }
        let delivered = snapshotEvents
        snapshotEvents = [:]
        for (object, events) in delivered.values { object.awake(fromSnapshotEvents: events) }
    }
}

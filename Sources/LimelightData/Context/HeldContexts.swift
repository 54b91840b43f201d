import Foundation

/// The contexts whose `performAndWait` the current thread is inside, so a nested call for one of
/// them runs at once instead of waiting on a queue the thread itself holds.
///
/// It matters for nested contexts: inside `parent.performAndWait`, a child's `performAndWait`
/// reads from its parent, and waiting for the parent's queue there would wait for ever. Core
/// Data's `performAndWait` is re-entrant in the same way. A dispatch queue's own key does not
/// tell: inside the child's block, the current queue is the child's, not the parent's.
enum HeldContexts {
    /// Per thread: a list of context identities, kept in a thread-specific slot.
    private final class List {
        var held: [ObjectIdentifier] = []
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        return key
    }()

    private static var current: List {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<List>.fromOpaque(pointer).takeUnretainedValue()
        }
        let list = List()
        pthread_setspecific(key, Unmanaged.passRetained(list).toOpaque())
        return list
    }

    static func isHeld(_ context: ManagedObjectContext) -> Bool {
        guard let pointer = pthread_getspecific(key) else { return false }
        return Unmanaged<List>.fromOpaque(pointer).takeUnretainedValue().held.contains(ObjectIdentifier(context))
    }

    /// Runs `body` with `context` counted as held by this thread.
    static func holding<T>(_ context: ManagedObjectContext, _ body: () throws -> T) rethrows -> T {
        let list = current
        list.held.append(ObjectIdentifier(context))
        defer { list.held.removeLast() }
        return try body()
    }
}

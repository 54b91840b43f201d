/// How objects reach their context: a small object the context owns and empties as it goes.
///
/// A weak reference from every object would do the same, but gives the context a side table and
/// makes each object's registration and departure a few atomic operations on it; objects instead
/// hold this one strongly, and it names the context until the context's deinit clears it. As with
/// the objects themselves, it is used on the context's queue only.
final class ContextReference {
    /// The context, or `nil` once it is gone. Not counted: the context clears it before it goes.
    unowned(unsafe) var context: ManagedObjectContext?

    init() {}
}

/// What an object reaches its context through: objects hold the link strongly, and the context
/// clears it as it goes, so an object outliving its context sees `nil` as with a weak reference.
///
/// Why not a weak reference: an object reads its context on every tracked change, and a weak
/// reference makes each of those reads, and every retain and release of the context anywhere,
/// take the runtime's slow path through a side table. The context's `deinit` clears the link
/// before anything of it goes, and objects are used on their context's queue only, so a read
/// never meets a context that is being torn down.
final class ContextLink {
    unowned(unsafe) var context: ManagedObjectContext?
}

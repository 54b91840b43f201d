import Foundation

/// Hands items from one thread to another, in order, holding at most `capacity`: the giver
/// waits while it is full, so a slow taker does not make the giver hold a whole batch in
/// memory, and the taker waits while it is empty.
final class HandOffQueue<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = []
    private var closed = false
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func put(_ item: Item) {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity { condition.wait() }
        items.append(item)
        condition.broadcast()
    }

    /// No more items will come: `take` returns nil once the queue is empty.
    func close() {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        condition.broadcast()
    }

    /// The next item, waiting for one; nil when the queue is closed and empty.
    func take() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        guard !items.isEmpty else { return nil }
        condition.broadcast()
        return items.removeFirst()
    }
}

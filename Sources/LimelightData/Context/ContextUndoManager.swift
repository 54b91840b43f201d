import Foundation

/// Records every change a context makes so it can be undone and redone, also across saves.
///
/// Changes made between two `endGrouping()` calls form one step. The context closes the open group
/// at `processPendingChanges()` and `save()`; call `beginGrouping()`/`endGrouping()` yourself to
/// make larger steps. An undone change is a pending change again, saved by the next save.
public final class ContextUndoManager {
    typealias Action = (ManagedObjectContext) -> Void

    private var undoStack: [[Action]] = []
    private var redoStack: [[Action]] = []
    private var openGroup: [Action] = []
    private var explicitDepth = 0
    private enum Mode { case normal, undoing, redoing }
    private var mode = Mode.normal
    /// Steps kept at most; 0 means no limit.
    public var levelsOfUndo = 0
    /// While disabled, changes are not recorded.
    public private(set) var isEnabled = true

    public init() {}

    public var canUndo: Bool { !undoStack.isEmpty || !openGroup.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }

    public func beginGrouping() {
        if explicitDepth == 0 { closeGroup() }
        explicitDepth += 1
    }

    public func endGrouping() {
        explicitDepth = max(0, explicitDepth - 1)
        if explicitDepth == 0 { closeGroup() }
    }

    public func disableUndoRegistration() { isEnabled = false }
    public func enableUndoRegistration() { isEnabled = true }

    public func removeAllActions() {
        undoStack = []
        redoStack = []
        openGroup = []
    }

    func register(_ action: @escaping Action) {
        guard isEnabled else { return }
        switch mode {
        case .normal:
            openGroup.append(action)
            redoStack = []
        case .undoing, .redoing:
            openGroup.append(action)
        }
    }

    func closeGroup() {
        guard !openGroup.isEmpty, explicitDepth == 0 || mode != .normal else { return }
        switch mode {
        case .normal, .redoing: undoStack.append(openGroup)
        case .undoing: redoStack.append(openGroup)
        }
        openGroup = []
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }

    func undo(in context: ManagedObjectContext) {
        explicitDepth = 0
        closeGroup()
        guard let group = undoStack.popLast() else { return }
        run(group, mode: .undoing, context: context)
    }

    func redo(in context: ManagedObjectContext) {
        closeGroup()
        guard let group = redoStack.popLast() else { return }
        run(group, mode: .redoing, context: context)
    }

    private func run(_ group: [Action], mode: Mode, context: ManagedObjectContext) {
        self.mode = mode
        for action in group.reversed() { action(context) }
        closeGroup()
        self.mode = .normal
    }
}

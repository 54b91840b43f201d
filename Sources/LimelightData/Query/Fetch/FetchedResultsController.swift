import Foundation

/// Keeps the results of a fetch request up to date as its context changes, in sections, and says
/// what changed, as Core Data's `NSFetchedResultsController` does: the model a list or table view
/// shows, with the inserts, deletes, moves and updates to animate.
///
/// It follows the context's `objectsDidChange`: the changes a context processes (at
/// `processPendingChanges()`, a save, an undo, a merge from another context) are matched against
/// the request's entity, predicate and sort order in memory, without fetching again. Use it on
/// its context's queue, and let it go there.
public final class FetchedResultsController {
    public let fetchRequest: FetchRequest
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section; `nil` for one section.
    public let sectionNameKeyPath: String?
    /// Accepted for Core Data's signature; results are not cached on disk.
    public let cacheName: String?
    public weak var delegate: FetchedResultsControllerDelegate?

    private var layout: FetchedResultsLayout?
    private var entity: EntityDescription?
    private var observer: UUID?

    public init(fetchRequest: FetchRequest, managedObjectContext: ManagedObjectContext, sectionNameKeyPath: String? = nil,
                cacheName: String? = nil) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    deinit {
        if let observer { managedObjectContext.removeObserver(observer) }
    }

    /// Fetches the results, and from then on follows the context's changes.
    public func performFetch() throws {
        let objects = try managedObjectContext.fetch(fetchRequest)
        entity = try managedObjectContext.resolve(fetchRequest).0
        layout = makeLayout(objects)
        if observer == nil {
            observer = managedObjectContext.addObserver { [weak self] event, changes in
                guard case .objectsDidChange = event else { return }
                self?.contextDidChange(changes)
            }
        }
    }

    /// The results in order; `nil` before `performFetch()`.
    public var fetchedObjects: [ManagedObject]? { layout?.objects }
    /// The results in sections; `nil` before `performFetch()`.
    public var sections: [FetchedResultsSection]? { layout?.sections }

    /// The object at `indexPath` (section, item); `nil` when there is none.
    public func object(at indexPath: IndexPath) -> ManagedObject? {
        guard indexPath.count == 2, let sections = layout?.sections, sections.indices.contains(indexPath.section) else { return nil }
        let objects = sections[indexPath.section].objects
        return objects.indices.contains(indexPath.item) ? objects[indexPath.item] : nil
    }

    public func indexPath(forObject object: ManagedObject) -> IndexPath? {
        layout?.paths[ObjectIdentifier(object)]
    }

    /// The sections' index titles, each once, in order.
    public var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return (layout?.sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The first section whose index title is `title`; `sectionIndex` when none is.
    public func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        layout?.sections.firstIndex { $0.indexTitle == title } ?? sectionIndex
    }

    // MARK: Following the context

    private func makeLayout(_ objects: [ManagedObject]) -> FetchedResultsLayout {
        let sortKeyPaths = (sectionNameKeyPath.map { [$0] } ?? []) + fetchRequest.sortDescriptors.map(\.key)
        return FetchedResultsLayout(objects: objects, sectionNameKeyPath: sectionNameKeyPath, sortKeyPaths: sortKeyPaths) { [weak self] name in
            guard let self else { return FetchedResultsLayout.defaultIndexTitle(name) }
            return delegate?.controller(self, sectionIndexTitleForSectionName: name) ?? FetchedResultsLayout.defaultIndexTitle(name)
        }
    }

    private func covers(_ object: ManagedObject, _ entity: EntityDescription) -> Bool {
        fetchRequest.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
    }

    private func contextDidChange(_ changes: ContextChanges) {
        guard let layout, let entity else { return }
        var changed: [ManagedObject] = []
        for set in [changes.inserted, changes.updated, changes.deleted] {
            changed += set.filter { covers($0, entity) }
        }
        guard !changed.isEmpty else { return }
        // The results as they now are: members leave or join by the predicate, in memory.
        var members = layout.objects
        var isMember = Set(members.map(ObjectIdentifier.init))
        let gone = { (object: ManagedObject) in object.isDeleted || object.managedObjectContext !== self.managedObjectContext }
        for object in changed {
            let id = ObjectIdentifier(object)
            let belongs = !gone(object) && ((try? fetchRequest.predicate?.evaluate(with: object)) ?? true)
            if belongs, isMember.insert(id).inserted { members.append(object) }
            if !belongs, isMember.remove(id) != nil { members.removeAll { $0 === object } }
        }
        let ordered = order(members, previous: layout)
        let next = makeLayout(ordered)
        let updated = Set(changes.updated.map(ObjectIdentifier.init))
        let diff = FetchedResultsDiff(from: layout, to: next, updated: updated)
        self.layout = next
        guard !diff.isEmpty, let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for change in diff.sections { delegate.controller(self, didChange: change.section, atSectionIndex: change.index, for: change.type) }
        for change in diff.objects { delegate.controller(self, didChange: change.object, at: change.old, for: change.type, newIndexPath: change.new) }
        delegate.controllerDidChangeContent(self)
    }

    /// The request's sort order; objects it does not tell apart keep their previous order (new
    /// ones after), so nothing moves without a reason. The limit applies last; the offset applied
    /// to the first fetch (objects before it are not followed).
    private func order(_ objects: [ManagedObject], previous: FetchedResultsLayout) -> [ManagedObject] {
        let descriptors = fetchRequest.sortDescriptors
        let before = Dictionary(previous.objects.enumerated().map { (ObjectIdentifier($1), $0) }) { first, _ in first }
        let arrival = Dictionary(objects.enumerated().map { (ObjectIdentifier($1), $0) }) { first, _ in first }
        let sorted = objects.sorted { left, right in
            for descriptor in descriptors {
                let result = ValueOrdering.compare(left.value(forKeyPath: descriptor.key), right.value(forKeyPath: descriptor.key),
                                                   comparison: descriptor.comparison)
                if result != .orderedSame { return descriptor.ascending ? result == .orderedAscending : result == .orderedDescending }
            }
            let l = before[ObjectIdentifier(left)] ?? Int.max, r = before[ObjectIdentifier(right)] ?? Int.max
            if l != r { return l < r }
            return (arrival[ObjectIdentifier(left)] ?? 0) < (arrival[ObjectIdentifier(right)] ?? 0)
        }
        return fetchRequest.fetchLimit > 0 ? Array(sorted.prefix(fetchRequest.fetchLimit)) : sorted
    }
}

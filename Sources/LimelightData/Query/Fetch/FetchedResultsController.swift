import Foundation

/// Keeps the results of a fetch request up to date as its context changes, in sections, and says
/// what changed, as Core Data's `NSFetchedResultsController` does: the model a list or table view
/// shows, with the inserts, deletes, moves and updates to animate.
///
/// It follows the context's `objectsDidChange`: the changes a context processes (at
/// `processPendingChanges()`, a save, an undo, a merge from another context) are matched against
/// the request's entity, predicate and sort order in memory, without fetching again. Use it on
/// its context's queue, and let it go there.
///
/// `ResultType` is the class of the objects (`FetchedResultsController<Recipe>`), or
/// `ManagedObject`; the request must fetch objects (its `resultType` `.managedObject`).
public final class FetchedResultsController<ResultType: ManagedObject> {
    public let fetchRequest: FetchRequest<ResultType>
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section; `nil` for one section.
    public let sectionNameKeyPath: String?
    /// Accepted for Core Data's signature; results are not cached on disk.
    public let cacheName: String?
    public weak var delegate: FetchedResultsControllerDelegate?

    private var layout: FetchedResultsLayout? {
        didSet { typedObjects = layout.map { $0.objects.compactMap { $0 as? ResultType } } }
    }
    private var typedObjects: [ResultType]?
    private var entity: EntityDescription?
    private var observer: UUID?

    public init(fetchRequest: FetchRequest<ResultType>, managedObjectContext: ManagedObjectContext, sectionNameKeyPath: String? = nil,
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
        let specification = fetchRequest.specification
        guard specification.resultType == .managedObject else {
            throw PersistenceError.invalidRequest("a fetched results controller follows objects; the request for \(specification.subject) has resultType .\(specification.resultType)")
        }
        let objects: [ManagedObject] = try managedObjectContext.fetch(fetchRequest)
        entity = try managedObjectContext.resolve(specification).0
        layout = makeLayout(objects, values: sortValues(of: objects))
        if observer == nil {
            observer = managedObjectContext.addObserver { [weak self] event, changes in
                guard case .objectsDidChange = event else { return }
                self?.contextDidChange(changes)
            }
        }
    }

    /// The results in order; `nil` before `performFetch()`.
    public var fetchedObjects: [ResultType]? { typedObjects }
    /// The results in sections; `nil` before `performFetch()`.
    public var sections: [FetchedResultsSection]? { layout?.sections }

    /// The object at `indexPath` (section, item). As in Core Data (and as an array's subscript),
    /// an index path outside the results stops the program; `objectIfPresent(at:)` does not.
    public func object(at indexPath: IndexPath) -> ResultType {
        guard let object = objectIfPresent(at: indexPath) else {
            preconditionFailure("no object at \(indexPath) among the fetched results (\(layout?.sections.map(\.numberOfObjects) ?? []) objects per section)")
        }
        return object
    }

    /// The object at `indexPath` (section, item); `nil` when there is none.
    public func objectIfPresent(at indexPath: IndexPath) -> ResultType? {
        guard indexPath.count == 2, let sections = layout?.sections, sections.indices.contains(indexPath.section) else { return nil }
        let objects = sections[indexPath.section].objects
        return objects.indices.contains(indexPath.item) ? objects[indexPath.item] as? ResultType : nil
    }

    public func indexPath(forObject object: ResultType) -> IndexPath? {
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

    /// Each object's values of the section key path (first, when there is one) and of the sort
    /// key paths: read once per change, for sorting and for telling moves from shifts.
    private func sortValues(of objects: [ManagedObject]) -> [[Any?]] {
        let keyPaths = (sectionNameKeyPath.map { [$0] } ?? []) + fetchRequest.specification.sortDescriptors.map(\.key)
        return objects.map { object in keyPaths.map { object.value(forKeyPath: $0) } }
    }

    private func makeLayout(_ objects: [ManagedObject], values: [[Any?]]) -> FetchedResultsLayout {
        FetchedResultsLayout(objects: objects, values: values, hasSectionKeyPath: sectionNameKeyPath != nil) { [weak self] name in
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
        var leaving: Set<ObjectIdentifier> = []
        let gone = { (object: ManagedObject) in object.isDeleted || object.managedObjectContext !== self.managedObjectContext }
        for object in changed {
            let id = ObjectIdentifier(object)
            let belongs = !gone(object) && ((try? fetchRequest.predicate?.evaluate(with: object)) ?? true)
            if belongs, isMember.insert(id).inserted { members.append(object) }
            if !belongs, isMember.remove(id) != nil { leaving.insert(id) }
        }
        if !leaving.isEmpty { members.removeAll { leaving.contains(ObjectIdentifier($0)) } }
        let (ordered, values) = order(members, previous: layout)
        let next = makeLayout(ordered, values: values)
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
    private func order(_ objects: [ManagedObject], previous: FetchedResultsLayout) -> ([ManagedObject], [[Any?]]) {
        let descriptors = fetchRequest.specification.sortDescriptors
        let first = sectionNameKeyPath == nil ? 0 : 1
        let values = sortValues(of: objects)
        let before = Dictionary(previous.objects.enumerated().map { (ObjectIdentifier($1), $0) }) { first, _ in first }
        let previousPosition = objects.map { before[ObjectIdentifier($0)] ?? Int.max }
        var sorted = objects.indices.sorted { left, right in
            for (number, descriptor) in descriptors.enumerated() {
                let result = ValueOrdering.compare(values[left][first + number], values[right][first + number], comparison: descriptor.comparison)
                if result != .orderedSame { return descriptor.ascending ? result == .orderedAscending : result == .orderedDescending }
            }
            if previousPosition[left] != previousPosition[right] { return previousPosition[left] < previousPosition[right] }
            return left < right
        }
        if fetchRequest.fetchLimit > 0 { sorted = Array(sorted.prefix(fetchRequest.fetchLimit)) }
        return (sorted.map { objects[$0] }, sorted.map { values[$0] })
    }
}

import Foundation

/// A fetched results controller's results cut into sections, with each object's index path: the
/// state the controller shows, and what its changes are computed between.
struct FetchedResultsLayout {
    var sections: [FetchedResultsSection] = []
    var paths: [ObjectIdentifier: IndexPath] = [:]
    /// Each object's values of the sort key paths as this layout ordered it by, to tell objects
    /// whose order can have changed from those that only shifted.
    var sortValues: [ObjectIdentifier: [Any?]] = [:]

    var objects: [ManagedObject] { sections.flatMap(\.objects) }

    /// Sections follow the objects' order: a new section starts where the section key path's
    /// value changes (so, as in Core Data, the first sort descriptor should order by it).
    /// `values[i]` are `objects[i]`'s values of the section key path (first, when there is one)
    /// and of the sort key paths, read once by the controller for sorting and kept here.
    init(objects: [ManagedObject], values: [[Any?]], hasSectionKeyPath: Bool, indexTitle: (String) -> String?) {
        for (object, values) in zip(objects, values) { sortValues[ObjectIdentifier(object)] = values }
        guard hasSectionKeyPath else {
            sections = [FetchedResultsSection(name: "", indexTitle: nil, objects: objects)]
            for (item, object) in objects.enumerated() { paths[ObjectIdentifier(object)] = IndexPath(indexes: [0, item]) }
            return
        }
        var current: (name: String, objects: [ManagedObject])?
        func close() {
            guard let current else { return }
            sections.append(FetchedResultsSection(name: current.name, indexTitle: indexTitle(current.name), objects: current.objects))
        }
        for (object, values) in zip(objects, values) {
            let name = Self.sectionName(values.first ?? nil)
            if current?.name != name {
                close()
                current = (name, [])
            }
            paths[ObjectIdentifier(object)] = IndexPath(indexes: [sections.count, current?.objects.count ?? 0])
            current?.objects.append(object)
        }
        close()
    }

    /// A section key path's value as the section's name.
    static func sectionName(_ value: Any?) -> String {
        switch value {
        case nil: return ""
        case let text as String: return text
        case let value?: return "\(value)"
        }
    }

    /// The default index title: the name's first letter, capitalized.
    static func defaultIndexTitle(_ name: String) -> String? {
        name.first.map { String($0).uppercased() }
    }
}

/// The changes from one layout to the next, in the order the delegate hears them.
struct FetchedResultsDiff {
    var sections: [(section: FetchedResultsSection, index: Int, type: FetchedResultsChangeType)] = []
    var objects: [(object: ManagedObject, old: IndexPath?, new: IndexPath?, type: FetchedResultsChangeType)] = []

    var isEmpty: Bool { sections.isEmpty && objects.isEmpty }

    /// Objects whose sort values did not change keep their order among themselves (the sort is
    /// stable): they are not moves, only updates if the context reported them changed. An
    /// object whose sort values changed is a move when its section or its place among those
    /// others changed, or, among objects that changed between the same two others, when it is
    /// not one of the most that kept their order. Objects that only shifted are not reported.
    init(from old: FetchedResultsLayout, to new: FetchedResultsLayout, updated: Set<ObjectIdentifier>) {
        let oldNames = Set(old.sections.map(\.name)), newNames = Set(new.sections.map(\.name))
        for (index, section) in old.sections.enumerated() where !newNames.contains(section.name) {
            sections.append((section, index, .delete))
        }
        for (index, section) in new.sections.enumerated() where !oldNames.contains(section.name) {
            sections.append((section, index, .insert))
        }
        let oldObjects = old.objects, newObjects = new.objects
        for object in oldObjects where new.paths[ObjectIdentifier(object)] == nil {
            objects.append((object, old.paths[ObjectIdentifier(object)], nil, .delete))
        }
        for object in newObjects where old.paths[ObjectIdentifier(object)] == nil {
            objects.append((object, nil, new.paths[ObjectIdentifier(object)], .insert))
        }
        let kept = { (id: ObjectIdentifier) in old.paths[id] != nil && new.paths[id] != nil }
        let steady = { (id: ObjectIdentifier) in
            guard let before = old.sortValues[id], let after = new.sortValues[id], before.count == after.count else { return false }
            return zip(before, after).allSatisfy { ValueOrdering.compare($0, $1, comparison: .standard) == .orderedSame }
        }
        // For each kept object: how many steady objects precede it, before and after, and its rank.
        var oldGap: [ObjectIdentifier: Int] = [:], oldRank: [ObjectIdentifier: Int] = [:]
        var steadySeen = 0
        for object in oldObjects {
            let id = ObjectIdentifier(object)
            guard kept(id) else { continue }
            oldGap[id] = steadySeen
            oldRank[id] = oldRank.count
            if steady(id) { steadySeen += 1 }
        }
        var moved: Set<ObjectIdentifier> = []
        var group: [(id: ObjectIdentifier, rank: Int)] = []
        func settle() {
            for index in Self.outOfOrder(group.map(\.rank)) { moved.insert(group[index].id) }
            group = []
        }
        steadySeen = 0
        for object in newObjects {
            let id = ObjectIdentifier(object)
            guard kept(id), let oldPath = old.paths[id], let newPath = new.paths[id] else { continue }
            if steady(id) {
                settle()
                steadySeen += 1
                continue
            }
            if oldGap[id] != steadySeen || old.sections[oldPath.section].name != new.sections[newPath.section].name {
                moved.insert(id)
            } else {
                group.append((id, oldRank[id] ?? 0))
            }
        }
        settle()
        var moves: [(ManagedObject, IndexPath?, IndexPath?, FetchedResultsChangeType)] = []
        var updates: [(ManagedObject, IndexPath?, IndexPath?, FetchedResultsChangeType)] = []
        for object in newObjects {
            let id = ObjectIdentifier(object)
            guard kept(id) else { continue }
            if moved.contains(id) {
                moves.append((object, old.paths[id], new.paths[id], .move))
            } else if updated.contains(id) {
                updates.append((object, old.paths[id], new.paths[id], .update))
            }
        }
        objects += moves + updates
    }

    /// The positions of `ranks` outside one longest increasing run through them: the fewest
    /// elements to move to put the rest in order.
    static func outOfOrder(_ ranks: [Int]) -> [Int] {
        guard ranks.count > 1 else { return [] }
        var tails: [Int] = []          // positions ending the best run of each length
        var previous = [Int](repeating: -1, count: ranks.count)
        for (position, rank) in ranks.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if ranks[tails[middle]] < rank { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var inRun = Set<Int>()
        var position = tails.last ?? -1
        while position >= 0 {
            inRun.insert(position)
            position = previous[position]
        }
        return ranks.indices.filter { !inRun.contains($0) }
    }
}

import Foundation

/// One section of a fetched results controller's results: the objects that share a value of its
/// `sectionNameKeyPath`, in order (Core Data's `NSFetchedResultsSectionInfo`).
public struct FetchedResultsSection {
    /// The section key path's value for the section's objects, as text ("" when it has none).
    public let name: String
    /// What a section index shows for it: by default the name's first letter, capitalized.
    public let indexTitle: String?
    public let objects: [ManagedObject]
    public var numberOfObjects: Int { objects.count }
}

/// Core Data's name for a section (`NSFetchedResultsSectionInfo`, a protocol there), which
/// delegates written for Core Data name in `controller(_:didChange:atSectionIndex:for:)`.
public typealias FetchedResultsSectionInfo = FetchedResultsSection

/// What happened to an object or a section between two states of the results.
public enum FetchedResultsChangeType: Int, Sendable {
    case insert = 1
    case delete = 2
    case move = 3
    case update = 4
}

/// Told of every change to a fetched results controller's results, in Core Data's order:
/// `controllerWillChangeContent`, the section changes, the object changes (deletions with their
/// old index paths, insertions with their new ones), then `controllerDidChangeContent`.
///
/// Each method takes the controller whatever its result type (Core Data's take it as
/// `NSFetchedResultsController<NSFetchRequestResult>`), so one delegate can serve several
/// controllers and tell them apart with `===`; a changed object comes as `Any`, as in Core Data.
public protocol FetchedResultsControllerDelegate: AnyObject {
    func controllerWillChangeContent<ResultType>(_ controller: FetchedResultsController<ResultType>)
    func controller<ResultType>(_ controller: FetchedResultsController<ResultType>, didChange section: FetchedResultsSection,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)
    func controller<ResultType>(_ controller: FetchedResultsController<ResultType>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    func controllerDidChangeContent<ResultType>(_ controller: FetchedResultsController<ResultType>)
    /// The index title of a section; `nil` keeps the default (the name's first letter, capitalized).
    func controller<ResultType>(_ controller: FetchedResultsController<ResultType>, sectionIndexTitleForSectionName sectionName: String) -> String?
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent<ResultType>(_ controller: FetchedResultsController<ResultType>) {}
    public func controller<ResultType>(_ controller: FetchedResultsController<ResultType>, didChange section: FetchedResultsSection,
                           atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {}
    public func controller<ResultType>(_ controller: FetchedResultsController<ResultType>, didChange anObject: Any, at indexPath: IndexPath?,
                           for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {}
    public func controllerDidChangeContent<ResultType>(_ controller: FetchedResultsController<ResultType>) {}
    public func controller<ResultType>(_ controller: FetchedResultsController<ResultType>, sectionIndexTitleForSectionName sectionName: String) -> String? { nil }
}

#if !canImport(UIKit) && !canImport(AppKit)
/// The section-and-item form of an index path that UIKit and AppKit add, so code written against
/// Core Data's fetched results controller reads the same here.
extension IndexPath {
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    public init(row: Int, section: Int) { self.init(indexes: [section, row]) }
    public var section: Int { count > 0 ? self[0] : 0 }
    public var item: Int { count > 1 ? self[1] : 0 }
    public var row: Int { item }
}
#endif

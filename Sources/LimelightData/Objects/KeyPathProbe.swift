import Foundation
import Synchronization

/// One reading of a Swift key path on throwaway objects, to learn which `@Managed` declarations it
/// reads, in order: `\Book.author?.name` reads `author` on a book, then `name` on the author that
/// read gave, and so names `"author.name"`.
///
/// Every object of a probe has the probe's own entity, which has no properties: a declaration
/// read on one finds no value, and is recorded here. A to-one relationship's read gives a new
/// throwaway object of the destination class (even when declared optional), so the key path goes
/// on into that class's declarations; other reads give the declared type's empty value. The
/// objects belong to no context, so no context's code runs for them (`awakeFromInsert` neither);
/// their classes' `init(entity:insertInto:)` does.
///
/// The probe is found by the reads it makes through a task-local value, so probes on several
/// threads at once each see only their own. Only the thread that reads the key path touches it.
final class KeyPathProbe: @unchecked Sendable {
    @TaskLocal private static var current: KeyPathProbe?
    /// How many probes are reading right now, so that reads outside probes (of a declaration an
    /// entity lacks) skip the task-local look-up.
    private static let reading = Atomic<Int>(0)

    private struct Read {
        /// The declaration's wrapped key path (`\Author.name`).
        let keyPath: AnyKeyPath
        let name: String
        let owner: ManagedObject
        /// The throwaway destination object the read gave, for a to-one relationship.
        let destination: ManagedObject?
    }

    private let entity = EntityDescription(name: "KeyPathProbe", properties: [])
    /// The type the key path's value is the optional of, when the framework has no empty value
    /// of it (`ExposureSettings` of `\Book.author?.settings`): a declaration of it could be read
    /// only after an optional relationship, and would stop the program.
    private let riskyType: Any.Type?
    private var reads: [Read] = []

    private init(valueType: Any.Type) {
        let wrapped = (valueType as? OptionalMarker.Type)?.wrappedType
        riskyType = wrapped.flatMap { ManagedKeyPathNames.hasEmptyValue($0) ? nil : $0 }
    }

    /// The dotted Core Data key path `keyPath` stands for (`"author.publisher.city"`), or nil
    /// when it is not a chain of `@Managed` declarations through to-one relationships: a computed
    /// property anywhere, a step past a to-many relationship. Not kept: `ManagedKeyPathNames`
    /// keeps the answers.
    static func name(of keyPath: AnyKeyPath, from root: ManagedObject.Type) -> String? {
        let probe = KeyPathProbe(valueType: type(of: keyPath).valueType)
        let object = probe.makeObject(of: root)
        reading.add(1, ordering: .relaxed)
        $current.withValue(probe) { _ = object[keyPath: keyPath] }
        reading.subtract(1, ordering: .relaxed)
        guard probe.readsFollow(from: object), probe.readsAre(keyPath) else { return nil }
        return probe.reads.map(\.name).joined(separator: ".")
    }

    /// The value a `@Managed` declaration the object's entity lacks reads as: for an object of a
    /// probe on this thread, the read is recorded and a to-one relationship gives a throwaway
    /// destination; otherwise (and for every other declaration) none.
    static func read(wrapped: AnyKeyPath, storage: AnyKeyPath, of owner: ManagedObject) -> StoredValue {
        // Relaxed: only the probing thread needs to see its own count, and it does.
        guard reading.load(ordering: .relaxed) > 0, let probe = current, owner.entity === probe.entity else { return .null }
        let name = ManagedKeyCache.declarationName(wrapped: wrapped, storage: storage, in: owner)
        // Made outside the probe: what the class's init reads is not the key path's.
        let destination = probe.destinationClass(of: type(of: wrapped).valueType).map { type in
            $current.withValue(nil) { probe.makeObject(of: type) }
        }
        probe.reads.append(Read(keyPath: wrapped, name: name, owner: owner, destination: destination))
        return destination.map { StoredValue(present: $0) } ?? .null
    }

    /// The class of the throwaway object a to-one relationship declared as `declaredType` reads
    /// as. An optional one reads as nil instead (ending the chain) when going on could reach a
    /// declaration of the risky type; a non-optional one has no such way out, but a chain of those
    /// alone has a non-optional value type, which is never probed when risky.
    private func destinationClass(of declaredType: Any.Type) -> ManagedObject.Type? {
        guard let destination = ManagedKeyPathNames.standInClass(for: declaredType) else { return nil }
        guard declaredType is OptionalMarker.Type, let riskyType else { return destination }
        return ManagedKeyPathNames.declares(riskyType, reachableFrom: destination) ? nil : destination
    }

    private func makeObject(of type: ManagedObject.Type) -> ManagedObject {
        type.init(entity: entity, insertInto: nil)
    }

    /// Whether the first read was of the probed object and each later one of the object the read
    /// before it gave: a chain, not declarations read side by side.
    private func readsFollow(from root: ManagedObject) -> Bool {
        guard let first = reads.first, first.owner === root else { return false }
        return zip(reads, reads.dropFirst()).allSatisfy { previous, next in previous.destination.map { $0 === next.owner } ?? false }
    }

    /// Whether `keyPath` is exactly the recorded declarations, one after another (optionally
    /// chained where one is optional), and not a computed property that reads them.
    ///
    /// Swift has no public view of a key path's components; a chain's literal need not even equal
    /// the declarations' key paths appended (`\Book.a.b` and `(\Book.a).appending(path: \A.b)`
    /// can differ), and an optional chain cannot be appended at all. Its printed form (SE-0369)
    /// names each component by its accessor and value type, and marks optional chaining with `?`:
    /// the same for the literal and for the declarations' key paths joined. Should that form
    /// change, chains go unnamed, never misnamed. A single declaration's key path is also
    /// compared as is.
    private func readsAre(_ keyPath: AnyKeyPath) -> Bool {
        if reads.count == 1, reads[0].keyPath == keyPath { return true }
        var expected = "\\" + String(describing: type(of: keyPath).rootType)
        var chained = false
        var previousIsOptional = false
        for read in reads {
            let printed = "\(read.keyPath)"
            let root = "\\" + String(describing: type(of: read.keyPath).rootType)
            guard printed.hasPrefix(root) else { return false }
            if previousIsOptional { expected += "?" }
            chained = chained || previousIsOptional
            expected += printed.dropFirst(root.count)
            previousIsOptional = type(of: read.keyPath).valueType is OptionalMarker.Type
        }
        // Optional chaining to a value that is not optional wraps it, and the printed form ends in `?`.
        if chained, !previousIsOptional { expected += "?" }
        return "\(keyPath)" == expected
    }
}

import Foundation
import Logging

/// Core Data's XML store (`NSXMLStoreType`): the whole object graph in one XML file, read when the
/// store is added and written again, in full, at every save. Files Core Data wrote on a Mac open
/// here, and files written here open there.
///
/// The layout, as Core Data writes it: a `<databaseInfo>` with the store's UUID, the next object
/// number and the metadata as a property list, then one `<object type="ENTITY" id="z102">` per
/// object, holding `<attribute name="…" type="…">value</attribute>` for each attribute that has a
/// value and `<relationship name="…" type="…" destination="ENTITY" idrefs="z103 z104">` for each
/// relationship. Files are written to a temporary name, flushed and renamed into place, so a crash
/// leaves the old file or the new one. A file that does not fit the model (an entity or property it
/// lacks, an object named but missing) is refused with its line, before anything could be lost by
/// saving over it.
final class XMLStore: AtomicStore, @unchecked Sendable {
    /// The number the next new object's id gets (`z<number>`), unique across the whole file;
    /// `nil` once a file has used the last number there is (`z9223372036854775807`), after which
    /// new objects get named ids, as the file may give them, rather than a number that wraps round.
    private var nextObjectNumber: Int64? = 101
    /// The version number Core Data writes in `<databaseInfo>`.
    private static let formatVersion = "134481920"

    override func load() throws {
        guard let url else { throw PersistenceError.invalidRequest("an XML store needs a file URL") }
        guard FileManager.default.fileExists(atPath: url.path) else {
            try setMetadata(["NSStoreUUID": identifier])
            if !isReadOnly { try save() }
            return
        }
        let root = try Self.document(at: url)
        let info = root.children.first { $0.name == "databaseInfo" }
        var stored = try Self.metadata(in: info, path: url.path)
        if stored["NSStoreUUID"] == nil { stored["NSStoreUUID"] = identifier }
        try setMetadata(stored)
        if let text = info?.children.first(where: { $0.name == "nextObjectID" })?.text, let number = Int64(text.trimmed()) {
            nextObjectNumber = nextObjectNumber.map { max($0, number) }
        }
        let hashes = stored["NSStoreModelVersionHashes"] as? [String: Data]
        let migrating = options[StoreOption.migratePersistentStoresAutomatically] as? Bool == true
            && options[StoreOption.inferMappingModelAutomatically] as? Bool == true
            && hashes != nil && hashes != model.entityVersionHashesByName
        if !migrating, stored["LimelightVersion"] != nil, let hashes {
            try SQLiteSchemaCheck.verifyHashes(model: model, storeHashes: hashes, path: url.path)
        }
        var reader = try XMLStoreReader(store: self, names: XMLStoreNames(model: model), path: url.path, migrating: migrating)
        let nodes = try reader.nodes(of: root)
        if let highest = reader.highestNumber {
            let (next, isPastTheLast) = highest.addingReportingOverflow(1)
            nextObjectNumber = isPastTheLast ? nil : nextObjectNumber.map { max($0, next) }
        }
        addCacheNodes(Set(nodes))
        // A migrated store is written in the model's form at once, as a migration writes its
        // destination: the file then records the model it now fits.
        if migrating, !isReadOnly {
            if !reader.dropped.isEmpty {
                Self.logger.info("migrating \(url.path) to the model dropped what it no longer has: \(reader.dropped.sorted().joined(separator: ", "))")
            }
            try save()
        }
    }

    private static let logger = Logger(label: "limelight.store.xml")

    override func save() throws {
        guard let url else { throw PersistenceError.invalidRequest("an XML store needs a file URL") }
        var current = metadata
        current["NSStoreType"] = StoreType.xml.rawValue
        current["NSStoreUUID"] = identifier
        current["NSStoreModelVersionHashes"] = model.entityVersionHashesByName
        current["NSStoreModelVersionHashesVersion"] = 3
        current["NSStoreModelVersionIdentifiers"] = Array(model.versionIdentifiers).sorted()
        current["NSPersistenceFrameworkVersion"] = current["NSPersistenceFrameworkVersion"] ?? 1
        current["LimelightVersion"] = FrameworkVersion.current
        let writer = XMLStoreWriter(store: self, names: try XMLStoreNames(model: model))
        let text = try writer.document(uuid: identifier, version: Self.formatVersion, nextObjectNumber: nextObjectNumber ?? .max,
                                       metadata: current, nodes: cacheNodesInKeyOrder())
        try AtomicFile.write(Data(text.utf8), to: url, permissions: 0o644, durable: true)
        metadata = current
    }

    override func newReferenceObject(for managedObject: ManagedObject) -> AnyHashable {
        guard let number = nextObjectNumber else { return AnyHashable("x" + UUID().uuidString) }
        nextObjectNumber = number == .max ? nil : number + 1
        return AnyHashable(number)
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        let root = try document(at: url)
        var metadata = try metadata(in: root.children.first { $0.name == "databaseInfo" }, path: url.path)
        metadata["NSStoreType"] = metadata["NSStoreType"] ?? StoreType.xml.rawValue
        return metadata
    }

    override class func setMetadata(_ metadata: [String: Any], forPersistentStoreAt url: URL) throws {
        let root = try document(at: url)
        guard let info = root.children.first(where: { $0.name == "databaseInfo" }),
              let uuid = info.children.first(where: { $0.name == "UUID" })?.text.trimmed(), !uuid.isEmpty else {
            throw PersistenceError.store(path: url.path, reason: "has no <databaseInfo> with the store's UUID")
        }
        var merged = metadata
        merged["NSStoreUUID"] = uuid
        merged["NSStoreType"] = StoreType.xml.rawValue
        let element = "<metadata>\(try XMLStoreWriter.propertyList(merged))</metadata>"
        // The file is rewritten as it is but for its metadata element: markup, since a `<`
        // inside text or attributes is always written escaped.
        var text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        if let start = text.range(of: "<metadata>"), let end = text.range(of: "</metadata>", range: start.upperBound..<text.endIndex) {
            text.replaceSubrange(start.lowerBound..<end.upperBound, with: element)
        } else if let empty = text.range(of: "<metadata/>") {
            text.replaceSubrange(empty, with: element)
        } else if let close = text.range(of: "</databaseInfo>") {
            text.replaceSubrange(close.lowerBound..<close.lowerBound, with: "    " + element + "\n    ")
        } else {
            throw PersistenceError.store(path: url.path, reason: "has no <databaseInfo> to hold metadata")
        }
        try AtomicFile.write(Data(text.utf8), to: url, permissions: 0o644, durable: true)
    }

    /// The id the file gives an object: `z` and its number, or the name another writer gave it.
    func fileID(of id: ManagedObjectID) -> String {
        switch referenceObject(for: id)?.base {
        case let number as Int64: "z\(number)"
        case let name as String: name
        case let other?: "\(other)"
        case nil: "z\(id.primaryKey ?? 0)"
        }
    }

    /// The file's root element, refused unless it is an XML store's.
    private static func document(at url: URL) throws -> XMLTreeElement {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PersistenceError.store(path: url.path, reason: "cannot be read: \(error.localizedDescription)")
        }
        let root: XMLTreeElement
        do {
            root = try XMLReader.parse(data, keepsCarriageReturns: true)
        } catch {
            throw PersistenceError.store(path: url.path, reason: "is not a Core Data XML store: \(error)")
        }
        guard root.name == "database" else {
            throw PersistenceError.store(path: url.path, reason: "is not a Core Data XML store: its root element is <\(root.name)>, not <database>")
        }
        return root
    }

    /// The metadata `<databaseInfo>` holds: its property list, and the UUID beside it.
    private static func metadata(in info: XMLTreeElement?, path: String) throws -> [String: Any] {
        guard let info else { return [:] }
        var result: [String: Any] = [:]
        if let list = info.children.first(where: { $0.name == "metadata" })?.children.first {
            do {
                guard let dictionary = try XMLPropertyListDecoder.decode(element: list) as? [String: Any] else {
                    throw PersistenceError.store(path: path, reason: "line \(list.line): the store's metadata is not a dictionary")
                }
                result = dictionary
            } catch let error as PropertyListReadError {
                throw PersistenceError.store(path: path, reason: "line \(list.line): the store's metadata: \(error)")
            }
        }
        if let uuid = info.children.first(where: { $0.name == "UUID" })?.text.trimmed(), !uuid.isEmpty {
            result["NSStoreUUID"] = uuid
        }
        return result
    }
}

extension String {
    fileprivate func trimmed() -> String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

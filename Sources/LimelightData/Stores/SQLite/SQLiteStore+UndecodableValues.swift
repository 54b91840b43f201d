import Foundation
import Logging

extension SQLiteStore {
    private static let logger = Logger(label: "limelight.store")

    /// Bytes a transformable attribute's transformer cannot decode, read as Core Data reads them:
    /// its transformer returns nil, so the object has nil there, and the failure is logged naming
    /// the store, the entity, the object and the attribute. The rest of the fetch goes on. The
    /// file keeps the bytes: a save writes only the columns whose values changed, so they stay
    /// until the attribute is given a value of its own. Throws `mismatch` instead where the nil
    /// would be copied elsewhere for good (`refusesUndecodableValues`).
    func acceptUndecodable(_ mismatch: SQLiteValueMapping.Mismatch, attribute: AttributeDescription, entity: EntityDescription,
                           primaryKey: Int64?) throws(SQLiteValueMapping.Mismatch) {
        if refusesUndecodableValues { throw mismatch }
        let object = primaryKey.map { "object \(objectID(entity: entity, primaryKey: $0).uriString)" } ?? "a row"
        let warning = """
            \(path): entity \(entity.name), \(object), attribute \(attribute.name) (column \(mismatch.column ?? schema.column(for: attribute))): \
            \(mismatch.reason); it reads as nil, and the store keeps its bytes until the attribute is set
            """
        Self.logger.warning("\(warning)")
        warningObserver?(warning)
    }
}

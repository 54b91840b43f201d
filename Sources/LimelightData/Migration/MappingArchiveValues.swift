import Foundation

/// What mapping models keep as keyed archives, read alike from a compiled `.cdm` and from an
/// Xcode `xcmapping.xml` (whose binary attributes are archives of their own): user info
/// dictionaries and `NSExpression`s.
extension KeyedArchive {
    /// An archived user info dictionary: string keys, plain values (others are left out).
    func mappingUserInfo(_ field: Any?) throws -> [String: any Sendable]? {
        guard field != nil else { return nil }
        var result: [String: any Sendable] = [:]
        for (key, value) in try entries(field) {
            guard let key = try string(key) else { continue }
            switch try self.value(value) {
            case let text as String: result[key] = text
            case let number as Int: result[key] = number
            case let number as Double: result[key] = number
            case let flag as Bool: result[key] = flag
            case let data as Data: result[key] = data
            case let date as Date: result[key] = date
            default: continue
            }
        }
        return result
    }

    /// An archived `NSExpression`, read back into the format language; `place` names it in errors.
    func mappingExpression(_ field: Any?, in place: String) throws -> QueryExpression? {
        guard let object = try object(field) else { return nil }
        let format: String
        do {
            format = try ArchivedPredicate(archive: self, allowsMethodCalls: true).expressionFormat(object)
        } catch {
            throw ModelError("the expression of \(place) cannot be read: \(error)", at: source)
        }
        do {
            return try QueryExpression(format: format)
        } catch {
            throw ModelError("the expression of \(place), \(format), does not parse: \(error)", at: source)
        }
    }
}

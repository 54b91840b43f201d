import Foundation

/// Why a model could not be read, assembled or used.
public struct ModelError: Error, CustomStringConvertible, Equatable {
    /// Where: a file path, an entity or an entity.property.
    public var location: String
    public var reason: String

    public init(_ reason: String, at location: String) {
        self.reason = reason
        self.location = location
    }

    public var description: String { "\(location): \(reason)" }
}

extension ModelError {
    /// The bytes of a model file, or an error naming it.
    static func contents(of file: URL, what: String = "the model file") throws(ModelError) -> Data {
        do {
            return try Data(contentsOf: file)
        } catch {
            throw ModelError("cannot read \(what)", at: file.path)
        }
    }
}

import Foundation
import Synchronization

/// Named transformers for Transformable attributes: how a value becomes bytes in the store and back.
///
/// Register one under the `valueTransformerName` the model names. Core Data's keyed-archive
/// transformer is there from the start, under its names and for attributes that name none, as
/// in Core Data (registering one of its names replaces it).
public final class ValueTransformerRegistry: Sendable {
    public struct Transformer: Sendable {
        public var encode: @Sendable (Any) throws -> Data
        public var decode: @Sendable (Data) throws -> Any

        public init(encode: @escaping @Sendable (Any) throws -> Data, decode: @escaping @Sendable (Data) throws -> Any) {
            self.encode = encode
            self.decode = decode
        }
    }

    public static let shared = ValueTransformerRegistry()
    private let transformers = Mutex<[String: Transformer]>(
        Dictionary(uniqueKeysWithValues: KeyedArchiveTransformer.names.map { ($0, KeyedArchiveTransformer.transformer) }))

    /// Transformers registered as classes, by name, for `AttributeValueTransformer.transformer(forName:)`.
    private let classTransformers = Mutex<[String: ClassTransformer]>([:])

    /// A transformer class instance as the registry keeps it. Foundation's transformers are shared
    /// by every thread without being `Sendable`, and apps' subclasses are written for that: one
    /// keeps no state a call changes. Requiring `Sendable` would make every ported subclass
    /// restate it, so the registry takes that on here.
    private struct ClassTransformer: @unchecked Sendable {
        let object: AttributeValueTransformer
    }

    public func register(_ transformer: Transformer, forName name: String) {
        transformers.withLock { $0[name] = transformer }
        classTransformers.withLock { $0[name] = nil }
    }

    /// Registers a transformer written as a class (see `AttributeValueTransformer`); `nil` removes
    /// the one under `name`, and Core Data's keyed archive names go back to its transformer.
    func register(_ object: AttributeValueTransformer?, forName name: String) {
        guard let object else {
            classTransformers.withLock { $0[name] = nil }
            transformers.withLock {
                $0[name] = KeyedArchiveTransformer.names.contains(name) ? KeyedArchiveTransformer.transformer : nil
            }
            return
        }
        let kept = ClassTransformer(object: object)
        transformers.withLock {
            $0[name] = Transformer(encode: { try kept.object.storedBytes(for: $0, name: name) },
                                   decode: { try kept.object.value(fromStored: $0, name: name) })
        }
        classTransformers.withLock { $0[name] = kept }
    }

    func classTransformer(named name: String) -> AttributeValueTransformer? { classTransformers.withLock { $0[name]?.object } }

    func classTransformerNames() -> [String] { classTransformers.withLock { $0.keys.sorted() } }

    /// Registers a transformer that stores a `Codable` type as JSON.
    public func registerCodable<T: Codable & Sendable>(_ type: T.Type, forName name: String) {
        register(Transformer(
            encode: { value in
                guard let typed = value as? T else { throw TransformError(name: name, reason: "expected \(T.self), got \(Swift.type(of: value))") }
                return try JSONEncoder().encode(typed)
            },
            decode: { data in try JSONDecoder().decode(T.self, from: data) }), forName: name)
    }

    public func transformer(named name: String) -> Transformer? { transformers.withLock { $0[name] } }

    /// The transformer for an attribute's `valueTransformerName`: Core Data's default (a keyed
    /// archive) when it names none.
    public func transformer(for name: String?) -> Transformer? {
        guard let name, !name.isEmpty else { return transformer(named: KeyedArchiveTransformer.names[0]) }
        return transformer(named: name)
    }

    /// The bytes a transformable `attribute` stores for `value`: its transformer's encoding, or
    /// the value itself when it is bytes already and no transformer is registered. What every
    /// store writes; errors name the attribute, which a transformer does not know.
    func encode(_ value: Any, for attribute: AttributeDescription) throws -> Data {
        let place = "\(attribute.entity?.name ?? "?").\(attribute.name)"
        if let transformer = transformer(for: attribute.valueTransformerName) {
            do {
                return try transformer.encode(value)
            } catch var error as TransformError {
                error.reason = "\(place): \(error.reason)"
                throw error
            } catch {
                // An application's transformer throws its own errors, which name neither the
                // attribute nor the value: the save's error has to.
                let name = attribute.valueTransformerName.flatMap { $0.isEmpty ? nil : $0 } ?? KeyedArchiveTransformer.names[0]
                throw TransformError(name: name, reason: "\(place): cannot encode a \(type(of: value)): \(error)")
            }
        }
        if let data = value as? Data { return data }
        throw PersistenceError.invalidRequest("\(place): no value transformer registered as '\(attribute.valueTransformerName ?? "")' for \(type(of: value))")
    }

    /// A value a transformer could not encode or decode: `name` is the transformer's, `reason`
    /// says what and, for a save, which attribute.
    public struct TransformError: Error, CustomStringConvertible {
        public var name: String
        public var reason: String
        public var description: String { "value transformer '\(name)': \(reason)" }
    }
}

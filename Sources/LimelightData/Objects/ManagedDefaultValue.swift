import Foundation

/// A type that a non-optional `@Managed` property can fall back to when its stored value is absent.
///
/// A store written by other code may hold NULL in a column whose Swift property is declared
/// non-optional (an attribute that was optional in an older model version, or a row another client
/// wrote). Reading such a property returns the type's `managedDefaultValue` instead of stopping
/// the process. Numbers, `Bool`, `String`, `Data` and sets of objects have built-in fallbacks;
/// `Date`, `UUID`, `URL` and `Decimal` conform here; conform your own attribute types (for example
/// transformable values) to give them one.
public protocol ManagedDefaultValue {
    /// The value a non-optional property reads as when the store has none.
    static var managedDefaultValue: Self { get }
}

extension Date: ManagedDefaultValue {
    /// Core Data's reference date, 2001-01-01 00:00:00 UTC: the zero of its date columns.
    public static var managedDefaultValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
}

extension UUID: ManagedDefaultValue {
    /// The nil UUID (all zero bits).
    public static var managedDefaultValue: UUID {
        UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    }
}

extension URL: ManagedDefaultValue {
    /// The file system's root: a valid URL that names nothing the application made.
    public static var managedDefaultValue: URL { URL(fileURLWithPath: "/") }
}

extension Decimal: ManagedDefaultValue {
    public static var managedDefaultValue: Decimal { 0 }
}

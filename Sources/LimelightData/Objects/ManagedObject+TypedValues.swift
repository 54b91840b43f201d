import Foundation

extension ManagedObject {
    /// The value of a property as `type`, converted as a `@Managed` property of that type reads it:
    /// numbers to the declared width, a to-many as `Set<Destination>` or, ordered, as
    /// `[Destination]`, `nil` for an optional that has no value (or a value of another type), and
    /// a non-optional's fallback (zero, empty, `ManagedDefaultValue`) when there is none.
    ///
    /// It is what properties declared in an extension use, where `@Managed` cannot be (a wrapper
    /// needs stored properties): the classes generated for Xcode's "Category/Extension" code
    /// generation read through it and write through `setValue(_:forKey:)`.
    ///
    ///     var servings: Int16 {
    ///         get { value(forKey: "servings", as: Int16.self) }
    ///         set { setValue(newValue, forKey: "servings") }
    ///     }
    public func value<Value>(forKey key: String, as type: Value.Type) -> Value {
        ManagedValueBridge.cast(value(forKey: key), as: Value.self)
    }
}

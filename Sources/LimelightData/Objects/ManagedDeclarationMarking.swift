/// What the name look-up reads from a wrapper, whatever its value type, and the marked wrapper
/// that tells its declaration from the others for a moment.
protocol ManagedWrapperInfo {
    var explicitKey: String? { get }
    static var marked: Self { get }
    /// The declared Swift type (`String?` for `@Managed var name: String?`).
    static var declaredType: Any.Type { get }
}

extension Managed: ManagedWrapperInfo {
    var explicitKey: String? { key }
    static var marked: Managed { Managed(ManagedDeclarationMarker.key) }
    static var declaredType: Any.Type { Value.self }
}

enum ManagedDeclarationMarker {
    /// A key no model can use: entity property names are identifiers.
    static let key = "\u{0}limelight: the declaration being looked up"
}

/// Finds which stored property of an object a `@Managed` declaration is, by reflection: the
/// wrapper is marked through its storage key path, the object's children are searched for the
/// marked one, and the wrapper is put back.
///
/// Wrappers carry no identity of their own (every object would pay for it, per declaration, on
/// every init); this runs once per declaration, the first time it is read or written.
protocol ManagedDeclarationMarking {
    /// The label of the stored property this key path writes, as reflection shows it.
    func storageLabel(in owner: ManagedObject) -> String?
}

extension ReferenceWritableKeyPath: ManagedDeclarationMarking where Value: ManagedWrapperInfo {
    func storageLabel(in owner: ManagedObject) -> String? {
        guard let root = owner as? Root else { return nil }
        let original = root[keyPath: self]
        root[keyPath: self] = Value.marked
        defer { root[keyPath: self] = original }
        var mirror: Mirror? = Mirror(reflecting: owner)
        while let current = mirror {
            for child in current.children {
                if let wrapper = child.value as? ManagedWrapperInfo, wrapper.explicitKey == ManagedDeclarationMarker.key {
                    return child.label
                }
            }
            mirror = current.superclassMirror
        }
        return nil
    }
}

import Foundation

/// How Xcode makes the Swift class of an entity (the entity inspector's "Codegen").
///
/// Core Data itself never reads this: it is a build setting of the model file, kept in its XML as
/// `codeGenerationType`. Limelight's class generator reads it to write the code Xcode would have
/// written at build time.
public enum ClassCodeGeneration: Sendable, Equatable {
    /// "Manual/None": the application writes the class (the XML has no `codeGenerationType`).
    case manual
    /// "Class Definition" (`codeGenerationType="class"`): the whole class is generated.
    case classDefinition
    /// "Category/Extension" (`codeGenerationType="category"`): the application writes the class,
    /// the properties are generated in an extension of it.
    case category

    /// The value of the `codeGenerationType` XML attribute; `nil` for `.manual`.
    public var xmlValue: String? {
        switch self {
        case .manual: return nil
        case .classDefinition: return "class"
        case .category: return "category"
        }
    }

    /// The kind an XML attribute value names; anything unknown is taken as manual, as Xcode does
    /// with a value it does not know.
    public init(xmlValue: String?) {
        switch xmlValue {
        case "class": self = .classDefinition
        case "category": self = .category
        default: self = .manual
        }
    }
}

extension EntityDescription {
    /// The entity's "Codegen" setting in Xcode. It lives in the model file's XML attributes,
    /// so it reads and writes them: a model read and written again keeps it as it was.
    /// Compiled models (`.mom`) do not carry it and read as `.manual`.
    public var classCodeGeneration: ClassCodeGeneration {
        get { ClassCodeGeneration(xmlValue: extraXMLAttributes["codeGenerationType"]) }
        set { extraXMLAttributes["codeGenerationType"] = newValue.xmlValue }
    }
}

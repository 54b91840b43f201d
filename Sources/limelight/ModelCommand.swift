import ArgumentParser
import Foundation
import LimelightClassGeneration
import LimelightData

extension Limelight {
    struct Model: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "model", abstract: "List a model's entities, attributes and relationships, and check it; or print it as XML, or as Swift classes.")
        @Argument(help: "An .xcdatamodeld bundle, one .xcdatamodel, a contents file, a compiled .momd or .mom, or a store made by Core Data (the model it keeps of itself).")
        var model: String
        @Flag(help: "Print the model as normalized XML (as an .xcdatamodel's contents file).") var xml = false
        @Flag(help: "Print the Swift source of the model's ManagedObject subclasses, as Xcode's code generation writes them: a class for each entity set to Class Definition, an extension of your class for Category/Extension, and <Model>ModelClasses.register().")
        var swift = false
        @Flag(name: .customLong("public"), help: "With --swift: declare the classes and properties public.") var isPublic = false
        @Flag(help: "With --swift: generate a class for entities set to Manual/None as well.") var allEntities = false
        @Option(help: ArgumentHelp("With --swift: write the source to this file instead of printing it.", valueName: "file"))
        var output: String?

        func validate() throws {
            if !swift && (isPublic || allEntities || output != nil) {
                throw ValidationError("--public, --all-entities and --output go with --swift")
            }
            if swift && xml { throw ValidationError("--swift and --xml cannot be combined") }
        }

        func run() throws {
            let url = URL(fileURLWithPath: model)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue,
               url.lastPathComponent != "contents", StoreOpener.storeType(of: url) == .xml {
                throw CommandError("\(model) is a Core Data XML store, which keeps no model of its own: give the model it was made with")
            }
            let loaded = Self.isSQLiteFile(url) ? try ManagedObjectModel(cachedInStoreAt: url) : try ManagedObjectModel(contentsOf: url)
            if xml {
                FileHandle.standardOutput.write(try loaded.xmlData())
                return
            }
            if swift {
                try generateClasses(loaded, from: url)
                return
            }
            for entity in loaded.entities.sorted(by: { $0.name < $1.name }) {
                var header = "\(entity.name)"
                if let parent = entity.superentity { header += " : \(parent.name)" }
                if entity.isAbstract { header += " (abstract)" }
                print(header)
                for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) {
                    var flags: [String] = []
                    if property.isOptional { flags.append("optional") }
                    if property.isTransient { flags.append("transient") }
                    if property.isIndexedBySpotlight { flags.append("indexed") }
                    if property.isStoredInExternalRecord { flags.append("in-marker") }
                    let kind: String
                    switch property {
                    case let attribute as AttributeDescription:
                        kind = attribute.attributeType.rawValue + Self.describeElements(of: attribute)
                            + (attribute.derivationExpression.map { " derived from \($0)" } ?? "")
                            + (attribute.defaultValue.map { " = \(Self.describeDefault($0))" } ?? "")
                    case let relationship as RelationshipDescription:
                        kind = "\(relationship.isToMany ? relationship.isOrdered ? "ordered to-many" : "to-many" : "to-one") \(relationship.destinationEntityName)"
                            + (relationship.inverseName.map { " (inverse \($0))" } ?? "") + " \(relationship.deleteRule.rawValue)"
                    case let fetched as FetchedPropertyDescription: kind = "fetched \(fetched.destinationEntityName) where \(fetched.predicateFormat ?? "")"
                    default: kind = "?"
                    }
                    print("  \(property.name): \(kind)\(flags.isEmpty ? "" : " [\(flags.joined(separator: ", "))]")")
                }
                for constraint in entity.uniquenessConstraints { print("  unique: \(constraint.joined(separator: ", "))") }
            }
            // Warnings are what Xcode warns about and Core Data loads anyway; problems stop it.
            for warning in ModelChecks.warnings(in: loaded) { print("warning: \(warning)") }
            let problems = ModelChecks.problems(in: loaded)
            if problems.isEmpty {
                print("model OK: \(loaded.entities.count) entities")
            } else {
                for problem in problems { print("problem: \(problem)") }
                throw ExitCode(1)
            }
        }

        private func generateClasses(_ loaded: ManagedObjectModel, from url: URL) throws {
            let generator = ManagedObjectClassGenerator(options: ClassGenerationOptions(
                accessLevel: isPublic ? .public : .internal, generatesAllEntities: allEntities))
            let source: String
            do {
                source = try generator.source(for: loaded, modelName: ManagedObjectClassGenerator.modelName(for: url),
                                              sourceName: url.lastPathComponent)
            } catch let error as ClassGenerationError {
                FileHandle.standardError.write(Data("limelight: cannot generate classes: \(error)\n".utf8))
                throw ExitCode(1)
            }
            if let output {
                try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } else {
                FileHandle.standardOutput.write(Data(source.utf8))
            }
        }

        /// A composite attribute's elements, `{richter: Double, scale: String}`, nested ones in
        /// turn; nothing for another attribute.
        static func describeElements(of attribute: AttributeDescription) -> String {
            guard let composite = attribute as? CompositeAttributeDescription else { return "" }
            return " {" + composite.elements.map { "\($0.name): \($0.attributeType.rawValue)\(describeElements(of: $0))" }.joined(separator: ", ") + "}"
        }

        /// A default value as the model file writes it; dates in UTC, to read against the file.
        static func describeDefault(_ value: Any) -> String {
            switch value {
            case let date as Date: return ISO8601DateFormatter().string(from: date)
            case let text as String: return "\"\(text)\""
            case let flag as Bool: return flag ? "YES" : "NO"
            default: return "\(value)"
            }
        }

        /// Whether `url` is an SQLite database, by the header every one starts with.
        static func isSQLiteFile(_ url: URL) -> Bool {
            guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
            defer { try? handle.close() }
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            return header == Data("SQLite format 3\u{0}".utf8)
        }
    }
}

/// Checks a model for what Core Data refuses (problems) and what Xcode only warns about.
enum ModelChecks {
    /// Relationships without an inverse: Xcode warns, Core Data loads and stores them (many
    /// models in the wild have some), so they do not fail the check.
    static func warnings(in model: ManagedObjectModel) -> [String] {
        guard (try? model.resolve()) != nil else { return [] }
        return model.entities.flatMap { entity in
            entity.ownProperties.compactMap { property -> String? in
                guard let relationship = property as? RelationshipDescription, relationship.inverseRelationship == nil else { return nil }
                return "\(entity.name).\(relationship.name) has no inverse relationship"
            }
        }
    }

    static func problems(in model: ManagedObjectModel) -> [String] {
        var problems: [String] = []
        do { try model.resolve() } catch { return ["\(error)"] }
        for entity in model.entities {
            for case let relationship as RelationshipDescription in entity.ownProperties {
                if relationship.inverseRelationship == nil {
                    continue
                } else if relationship.inverseRelationship?.inverseName != relationship.name {
                    problems.append("\(entity.name).\(relationship.name): its inverse does not point back")
                }
            }
            for case let attribute as AttributeDescription in entity.ownProperties where attribute.attributeType == .undefined && !attribute.isTransient {
                problems.append("\(entity.name).\(attribute.name): an Undefined attribute must be transient")
            }
            for constraint in entity.uniquenessConstraints {
                for name in constraint where entity.property(named: name) == nil {
                    problems.append("\(entity.name): uniqueness constraint names unknown property '\(name)'")
                }
            }
        }
        return problems
    }
}

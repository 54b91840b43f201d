import ArgumentParser
import Foundation
import LimelightData

extension Limelight {
    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch objects from a store, filtered in SQL by a predicate.",
            discussion: "Example: limelight fetch Cookbook.sqlite --model Cookbook.xcdatamodeld --entity Recipe --where 'name BEGINSWITH[cd] %@' sal")
        @Argument(help: "The SQLite store.") var store: String
        @Option(help: "The model: an .xcdatamodeld bundle, one .xcdatamodel inside it, or a contents file.") var model: String?
        @Option(help: "The entity to fetch.") var entity: String
        @Option(name: .customLong("where"), help: "A predicate format string; %@ and friends take the ARGs.") var predicate: String?
        @Argument(help: "Arguments for the predicate's %@, %K, %d … in order.") var arguments: [String] = []
        @Option(help: "Sort key path, KEY or KEY:desc; repeat for more.") var sort: [String] = []
        @Option(help: "At most this many objects.") var limit: Int = 0
        @Option(help: "Skip this many objects.") var offset: Int = 0
        @Option(help: "Comma-separated key paths to print (default: every property).") var properties: String?
        @Flag(help: "Print each distinct row of --properties once.") var distinct = false
        @Flag(help: "Print only the number of matching objects.") var count = false
        @Flag(help: "Print JSON, one object per line.") var json = false

        func run() throws {
            let opened = try StoreOpener.open(store: store, model: model, readOnly: true)
            guard opened.model.entity(named: entity) != nil else {
                throw CommandError("the model has no entity '\(entity)' (entities: \(opened.model.entities.map(\.name).sorted().joined(separator: ", ")))")
            }
            let request = FetchRequest(entityName: entity)
            if let predicate {
                request.predicate = try QueryPredicate(format: predicate, argumentArray: arguments.map { argument -> Any? in
                    if let int = Int(argument) { return int }
                    if let double = Double(argument) { return double }
                    return argument
                })
            }
            request.sortDescriptors = sort.map { key in
                let parts = key.split(separator: ":")
                return QuerySortDescriptor(key: String(parts[0]), ascending: parts.count < 2 || parts[1] != "desc")
            }
            request.fetchLimit = limit
            request.fetchOffset = offset
            if count {
                print(try opened.context.count(for: request))
                return
            }
            let objects = try opened.context.fetch(request)
            let keys = properties?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            var seen: Set<String> = []
            for object in objects {
                var values = ObjectPrinter.values(of: object)
                if let keys {
                    var selected: [String: Any] = [:]
                    for key in keys {
                        let value = object.value(forKeyPath: key)
                        switch value {
                        case let other as ManagedObject: selected[key] = other.objectID.uriRepresentation().absoluteString
                        case let many as [Any]: selected[key] = many.map { ($0 as? ManagedObject)?.objectID.uriRepresentation().absoluteString ?? "\(displayValue($0))" }
                        default: selected[key] = displayValue(value)
                        }
                    }
                    values = selected
                } else {
                    values["_uri"] = object.objectID.uriRepresentation().absoluteString
                }
                if distinct {
                    let signature = (try? JSONSerialization.data(withJSONObject: values, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? ""
                    if !seen.insert(signature).inserted { continue }
                }
                if json {
                    try printJSON(values)
                } else {
                    print(keys == nil ? "\(object.objectID)" : "-")
                    print(ObjectPrinter.text(values.filter { $0.key != "_uri" }))
                }
            }
        }
    }

    struct Model: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a model's entities, attributes and relationships, and check it.")
        @Argument(help: "An .xcdatamodeld bundle, one .xcdatamodel, or a contents file.") var model: String
        @Flag(help: "Print the model as normalized XML.") var xml = false

        func run() throws {
            let loaded = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model))
            if xml {
                FileHandle.standardOutput.write(try loaded.xmlData())
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
                    case let attribute as AttributeDescription: kind = attribute.attributeType.rawValue
                    case let relationship as RelationshipDescription:
                        kind = "\(relationship.isToMany ? "to-many" : "to-one") \(relationship.destinationEntityName)"
                            + (relationship.inverseName.map { " (inverse \($0))" } ?? "") + " \(relationship.deleteRule.rawValue)"
                    case let fetched as FetchedPropertyDescription: kind = "fetched \(fetched.destinationEntityName) where \(fetched.predicateFormat ?? "")"
                    default: kind = "?"
                    }
                    print("  \(property.name): \(kind)\(flags.isEmpty ? "" : " [\(flags.joined(separator: ", "))]")")
                }
            }
            let problems = ModelChecks.problems(in: loaded)
            if problems.isEmpty {
                print("model OK: \(loaded.entities.count) entities")
            } else {
                for problem in problems { print("problem: \(problem)") }
                throw ExitCode(1)
            }
        }
    }
}

/// Checks a model for what Core Data would warn about.
enum ModelChecks {
    static func problems(in model: ManagedObjectModel) -> [String] {
        var problems: [String] = []
        do { try model.resolve() } catch { return ["\(error)"] }
        for entity in model.entities {
            for case let relationship as RelationshipDescription in entity.ownProperties {
                if relationship.inverseRelationship == nil {
                    problems.append("\(entity.name).\(relationship.name) has no inverse relationship")
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

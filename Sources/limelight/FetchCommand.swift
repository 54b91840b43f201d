import ArgumentParser
import Foundation
import LimelightData
import LimelightSearch

extension Limelight {
    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fetch",
            abstract: "Fetch objects or computed rows from a store, filtered, grouped and aggregated in SQL.",
            discussion: """
                Without --properties, --distinct or --group-by it prints whole objects. With any of them it runs a \
                dictionary fetch that SQLite computes: each --properties entry is an attribute, a key path through \
                to-ones (owner.lastName), a to-one relationship (printed as the object's URI), 'self' (the object's \
                own URI), or an aggregate FUNCTION:KEYPATH (sum, count, min, max, avg, median, mode, stddev) named \
                FUNCTION_KEYPATH with dots as underscores (sum:cost is sum_cost); NAME=FUNCTION:KEYPATH picks the \
                name; count:* (or count:self) counts objects as count_all. --having and --sort can use those names \
                (--having '$count_model > 2', --sort sum_cost:desc).

                Examples:
                  limelight fetch Cookbook.sqlite --model Cookbook.xcdatamodeld --entity Recipe --where 'name BEGINSWITH[cd] %@' sal
                  limelight fetch Cars.sqlite --model Cars.xcdatamodeld --entity Car --properties maker,count:model --group-by maker
                """)
        @Argument(help: "The store: SQLite, or a Core Data XML store (which needs --model; it is computed in memory).") var store: String
        @Option(help: "The model: an .xcdatamodeld bundle, one .xcdatamodel inside it, a contents file, or a compiled .momd or .mom; default: the copy in the store's records folder, else the model the store keeps of itself.")
        var model: String?
        @Option(help: "The entity to fetch.") var entity: String
        @Option(name: .customLong("where"), help: "A predicate format string; %@ and friends take the ARGs.") var predicate: String?
        @Argument(help: "Arguments for the predicate's %@, %K, %d … in order.") var arguments: [String] = []
        @Option(help: "Sort key path or column name, KEY or KEY:desc; repeat for more.") var sort: [String] = []
        @Option(help: "At most this many results.") var limit: Int = 0
        @Option(help: "Skip this many results.") var offset: Int = 0
        @Option(help: "Comma-separated columns: attributes, key paths, to-ones, self, FUNCTION:KEYPATH.") var properties: [String] = []
        @Flag(help: "Print each distinct row once (SELECT DISTINCT).") var distinct = false
        @Option(name: .customLong("group-by"), help: "Comma-separated key paths to group by.") var groupBy: [String] = []
        @Option(help: "A predicate over the groups; may name aggregate columns.") var having: String?
        @Flag(help: "Print only the number of matching objects (or rows).") var count = false
        @Flag(help: "Print JSON, one object or row per line.") var json = false

        func run() throws {
            let opened = try StoreOpener.open(store: store, model: model, readOnly: true)
            guard let description = opened.model.entity(named: entity) else {
                throw CommandError("the model has no entity '\(entity)' (entities: \(opened.model.entities.map(\.name).sorted().joined(separator: ", ")))")
            }
            let request = FetchRequest<ManagedObject>(entityName: entity)
            if let predicate {
                request.predicate = try QueryPredicate(format: predicate, argumentArray: arguments.map(Self.argumentValue))
            }
            request.sortDescriptors = sort.map { key in
                let parts = key.split(separator: ":", omittingEmptySubsequences: false)
                let descending = parts.count > 1 && parts[parts.count - 1] == "desc"
                return QuerySortDescriptor(key: descending ? parts.dropLast().joined(separator: ":") : key, ascending: !descending)
            }
            request.fetchLimit = limit
            request.fetchOffset = offset
            if !properties.isEmpty || distinct || !groupBy.isEmpty {
                try printRows(request, entity: description, context: opened.context)
                return
            }
            if let having { throw CommandError("--having '\(having)' needs --group-by") }
            if count {
                print(try opened.context.count(for: request))
                return
            }
            for object in try opened.context.fetch(request) {
                var values = ObjectPrinter.values(of: object)
                if json {
                    values["_uri"] = .text(object.objectID.uriString)
                    try printJSON(ObjectPrinter.json(values))
                } else {
                    print(object.objectID.uriString)
                    print(ObjectPrinter.text(values))
                }
            }
        }

        /// A dictionary fetch: the columns, grouping and HAVING go to the store as one query.
        private func printRows(_ request: FetchRequest<ManagedObject>, entity: EntityDescription, context: ManagedObjectContext) throws {
            let grouped = Self.split(groupBy)
            var columns = try Self.split(properties).map(Self.column)
            // Grouped keys are shown even when --properties lists only the aggregates.
            let listed = Set(columns.compactMap { $0 as? String })
            columns = grouped.filter { !listed.contains($0) } + columns
            request.resultType = .dictionary
            request.propertiesToFetch = columns
            request.propertiesToGroupBy = grouped
            request.returnsDistinctResults = distinct
            if let having { request.havingPredicate = try QueryPredicate(format: having) }
            let rows = try context.fetchDictionaries(request)
            if count {
                print(rows.count)
                return
            }
            let keys = columns.isEmpty ? Self.defaultColumns(of: entity) : columns.map { ($0 as? ExpressionDescription)?.name ?? "\($0)" }
            if !json { print(keys.joined(separator: "\t")) }
            for row in rows {
                let shown = row.mapValues { PrintedValue($0, attribute: nil) }
                if json {
                    try printJSON(shown.mapValues(\.json))
                } else {
                    print(keys.map { key in shown[key]?.text ?? "" }.joined(separator: "\t"))
                }
            }
        }

        /// What a dictionary fetch gives without `propertiesToFetch`: stored attributes and to-ones.
        static func defaultColumns(of entity: EntityDescription) -> [String] {
            entity.properties.compactMap { property in
                if property.isTransient { return nil }
                if property is AttributeDescription { return property.name }
                if let relationship = property as? RelationshipDescription, !relationship.isToMany { return relationship.name }
                return nil
            }
        }

        static func split(_ lists: [String]) -> [String] {
            lists.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

        static let aggregates = ["sum": "sum:", "count": "count:", "min": "min:", "max": "max:", "avg": "average:",
                                 "average": "average:", "median": "median:", "mode": "mode:", "stddev": "stddev:"]

        /// `title`, `owner.name`, `self`, `sum:cost`, `total=sum:cost`.
        static func column(_ entry: String) throws -> Any {
            if entry.lowercased() == "self" { return ExpressionDescription.objectID(named: "self") }
            var name: String?
            var body = entry
            if let equals = entry.firstIndex(of: "=") {
                name = String(entry[..<equals])
                body = String(entry[entry.index(after: equals)...])
            }
            guard let colon = body.firstIndex(of: ":") else {
                if let name { throw CommandError("'\(entry)': only FUNCTION:KEYPATH columns take a name (\(name)=…)") }
                return body
            }
            let function = body[..<colon].lowercased()
            let keyPath = String(body[body.index(after: colon)...])
            guard let selector = aggregates[function] else {
                throw CommandError("'\(entry)': unknown function '\(function)' (known: \(aggregates.keys.sorted().joined(separator: ", ")))")
            }
            guard !keyPath.isEmpty else { throw CommandError("'\(entry)': \(function) needs a key path, as in \(function):price") }
            let argument: QueryExpression = keyPath == "*" || keyPath.lowercased() == "self" ? .evaluatedObject : .keyPath(keyPath)
            let label = name ?? "\(function)_\(argument == .evaluatedObject ? "all" : keyPath.replacingOccurrences(of: ".", with: "_"))"
            return ExpressionDescription(name: label, expression: .function(selector, [argument]))
        }

        static func argumentValue(_ argument: String) -> Any? {
            if let int = Int(argument) { return int }
            if let double = Double(argument) { return double }
            return argument
        }
    }
}

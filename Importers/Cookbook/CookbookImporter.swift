import ArgumentParser
import Foundation
import LimelightData

/// The cookbook's importer for `limelightd`: reads marker paths on stdin, one per line, and writes
/// one JSON index record per line: "Cookbook recipe: <name>", the directions, and the ingredients
/// as related text.
@main
struct CookbookImporter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cookbook-importer",
        abstract: "Import .recipe markers for limelightd (JSON lines on stdin/stdout).")

    func run() throws {
        var readers: [String: ExternalRecordReader] = [:]
        while let line = readLine() {
            let marker = line.trimmingCharacters(in: .whitespaces)
            if marker.isEmpty { continue }
            var record: [String: Any] = ["marker": marker]
            do {
                let elements = try ExternalRecordPath.decode(marker)
                let reader = try readers[elements.storeIdentifier] ?? ExternalRecordReader(markerPath: marker)
                readers[elements.storeIdentifier] = reader
                guard let id = reader.context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: elements.objectURI) else {
                    throw ExternalRecordError(path: marker, reason: "unknown store")
                }
                if let registered = reader.context.registeredObject(for: id) { reader.context.refresh(registered, mergeChanges: false) }
                let recipe = try reader.context.existingObject(with: id)
                let name = recipe.value(forKey: "name") as? String ?? "Untitled"
                let directions = recipe.value(forKey: "directions") as? String ?? ""
                let ingredients = (recipe.value(forKey: "ingredients") as? Set<ManagedObject> ?? [])
                    .compactMap { $0.value(forKey: "name") as? String }.sorted()
                record["uri"] = elements.objectURI.absoluteString
                record["entity"] = elements.entityName
                record["store"] = elements.storeIdentifier
                record["displayName"] = "Cookbook recipe: \(name)"
                record["fields"] = ["name": name, "directions": directions, "ingredients": ingredients.joined(separator: ", ")]
                if let servings = recipe.value(forKey: "servings") as? Int16 { record["values"] = ["servings": Int(servings)] }
            } catch {
                record["error"] = "\(error)"
            }
            let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes])
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}

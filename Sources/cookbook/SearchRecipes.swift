import ArgumentParser
import Foundation
import LimelightData
import LimelightSearch

extension Cookbook {
    /// The application's own search: the index `limelightd` keeps, asked through the cookbook's
    /// context, so the hits are the cookbook's recipes, with their ingredients at hand.
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find recipes through the Spotlight index (limelightd must have indexed them).",
            discussion: "The query is what `limelight search` takes: words, name:word, \"phrases\", wild*cards, AND/OR/NOT.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "What to look for.") var words: [String]
        @Option(help: "The most recipes to show.") var limit = 20
        @Option(help: "The index (default: $XDG_DATA_HOME/limelight/index).") var index: String?

        func run() throws {
            let context = try CookbookStore.open(at: options.url, readOnly: true)
            var query = SpotlightQuery(words.joined(separator: " "), entityNames: ["Recipe"])
            query.fetchLimit = limit
            query.indexURL = index.map { URL(fileURLWithPath: $0, isDirectory: true) }
            let results = try context.search(query)
            context.performAndWait {
                for hit in results.hits {
                    guard let recipe = hit.object as? Recipe else { continue }
                    let ingredients = recipe.ingredients.compactMap(\.name).sorted().joined(separator: ", ")
                    print("\(recipe.name ?? "?")\t\(hit.relevance)%\t\(ingredients)")
                    if !hit.snippet.isEmpty { print("    \(hit.snippet)") }
                }
            }
            if results.hits.isEmpty { throw ExitCode(1) }
        }
    }
}

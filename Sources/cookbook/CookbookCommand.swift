import ArgumentParser
import Foundation
import LimelightData

@main
struct Cookbook: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A small cookbook whose recipes are searchable with `limelight search`.",
        subcommands: [Add.self, List.self, Show.self, Edit.self, Delete.self, Search.self])
}

struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The cookbook store (default: $XDG_DATA_HOME/cookbook/Cookbook.sqlite).")
    var store: String?

    var url: URL { store.map { URL(fileURLWithPath: $0) } ?? CookbookStore.defaultStoreURL() }
}

extension Cookbook {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a recipe.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The recipe's name.") var name: String
        @Option(help: "How to make it.") var directions: String?
        @Option(help: "How many it serves.") var servings: Int16?
        @Option(name: .customLong("ingredient"), help: "An ingredient, e.g. \"2 tomatoes\"; repeat for more.") var ingredients: [String] = []

        func run() throws {
            let context = try CookbookStore.open(at: options.url)
            guard let recipe = try context.insertNewObject(forEntityName: "Recipe") as? Recipe else { throw CookbookError("model has no Recipe class") }
            recipe.name = name
            recipe.directions = directions
            if let servings { recipe.servings = servings }
            for text in ingredients {
                guard let ingredient = try context.insertNewObject(forEntityName: "Ingredient") as? Ingredient else { continue }
                ingredient.name = text
                ingredient.recipe = recipe
            }
            try context.save()
            CookbookStore.finishMarkers(context)
            print("Added \(name) (\(recipe.objectID))")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List recipes.")
        @OptionGroup var options: StoreOptions

        func run() throws {
            let context = try CookbookStore.open(at: options.url)
            let request = Recipe.fetchRequest()
            request.sortDescriptors = [QuerySortDescriptor(key: "name", comparison: .localized)]
            for recipe in try context.fetch(request) {
                print("\(recipe.name ?? "?")\t\(recipe.objectID)")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a recipe by name, object URI or marker file.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Name, x-coredata:// URI, or path of a .recipe marker.") var recipe: String

        func run() throws {
            var url = options.url
            if options.store == nil, recipe.hasSuffix(".recipe") {
                url = try ExternalRecordPath.decode(recipe).storeURL
            }
            let context = try CookbookStore.open(at: url, readOnly: true)
            let found = try CookbookStore.recipe(recipe, in: context)
            print("Recipe: \(found.name ?? "?")")
            print("Serves: \(found.servings)")
            let ingredients = found.ingredients.compactMap(\.name).sorted()
            if !ingredients.isEmpty { print("Ingredients: \(ingredients.joined(separator: ", "))") }
            print("Directions: \(found.directions ?? "")")
            print("URI: \(found.objectID)")
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a recipe.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Name or object URI of the recipe.") var recipe: String
        @Option(help: "A new name.") var name: String?
        @Option(help: "New directions.") var directions: String?
        @Option(help: "How many it serves.") var servings: Int16?

        func run() throws {
            let context = try CookbookStore.open(at: options.url)
            let found = try CookbookStore.recipe(recipe, in: context)
            if let name { found.name = name }
            if let directions { found.directions = directions }
            if let servings { found.servings = servings }
            try context.save()
            CookbookStore.finishMarkers(context)
            print("Updated \(found.name ?? "?")")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a recipe and its ingredients.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Name or object URI of the recipe.") var recipe: String

        func run() throws {
            let context = try CookbookStore.open(at: options.url)
            let found = try CookbookStore.recipe(recipe, in: context)
            let name = found.name ?? "?"
            context.delete(found)
            try context.save()
            CookbookStore.finishMarkers(context)
            print("Deleted \(name)")
        }
    }
}

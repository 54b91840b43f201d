import Foundation
import LimelightData

/// A recipe in the cookbook: its name and directions are indexed for search.
final class Recipe: ManagedObject {
    @Managed var name: String?
    @Managed var directions: String?
    @Managed var servings: Int16
    @Managed var created: Date?
    @Managed var ingredients: Set<Ingredient>

    override func awakeFromInsert() {
        created = Date()
    }
}

final class Ingredient: ManagedObject {
    @Managed var name: String?
    @Managed var amount: String?
    @Managed var recipe: Recipe?
}

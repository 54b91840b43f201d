import Foundation
import LimelightData

/// A recipe in the cookbook: its name and directions are indexed for search.
///
/// The model sets Recipe's code generation to "Category/Extension": the class is written here, for
/// its behaviour, and its properties (`name`, `directions`, `servings`, `created`, `ingredients`)
/// are generated from the model at build time. Ingredient is a "Class Definition": all of it is
/// generated.
final class Recipe: ManagedObject {
    override func awakeFromInsert() {
        created = Date()
    }
}

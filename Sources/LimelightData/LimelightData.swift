/// LimelightData: Core Data's programming model for Linux.
///
/// Models, managed objects, contexts, a coordinator and an SQLite store in Core Data's on-disk
/// layout. Names follow Core Data without the `NS` prefix.
public enum LimelightData {
    /// The framework version written into store metadata as `NSPersistenceFrameworkVersion`'s
    /// companion key, so stores made here can be told apart from Core Data's.
    public static let version = "0.1.0"

    /// The `@Managed` property wrapper by its qualified name: `@LimelightData.Managed var name: String?`.
    /// Generated classes are compiled with an application's own code, where a `protocol Managed`
    /// (a common Core Data pattern) hides the plain name, so they write this one. As this enum
    /// shares the module's name, `LimelightData.Managed` is looked up here, hence the alias.
    public typealias Managed<Value> = LimelightData::Managed<Value>
}

/// LimelightData: Core Data's programming model for Linux.
///
/// Models, managed objects, contexts, a coordinator and an SQLite store in Core Data's on-disk
/// layout. Names follow Core Data without the `NS` prefix.
public enum LimelightData {
    /// The framework version written into store metadata as `NSPersistenceFrameworkVersion`'s
    /// companion key, so stores made here can be told apart from Core Data's.
    public static let version = "0.1.0"
}

// LimelightData: Core Data's programming model for Linux. Models, managed objects, contexts, a
// coordinator and an SQLite store in Core Data's on-disk layout; names follow Core Data without
// the `NS` prefix.
//
// No type here may be named `LimelightData`. One of the module's name takes every
// `LimelightData.X` an application writes to reach past a type of its own (its own
// `ValidationError`, a `FetchRequest` struct nested in a helper, a `protocol Managed`), and the
// module's types could then not be named at all.

/// The framework's version, which stores record in their metadata (`LimelightVersion`) so that
/// stores made here can be told apart from Core Data's.
enum FrameworkVersion {
    static let current = "0.1.0"
}

// swift-tools-version:6.0
// Measures Limelight side by side with its peers in the same run. Separate from the main package so
// the main build stays lean: `make bench` builds it in release mode and runs it.
import PackageDescription

// A path dependency is known by its folder's name, whatever the checkout is called.
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "Limelight"

let package = Package(
    name: "LimelightBenchmarks",
    dependencies: [.package(path: "..")],
    targets: [
        .systemLibrary(name: "CSQLiteBench", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "limelight-bench",
            dependencies: [.product(name: "LimelightData", package: root), "CSQLiteBench"]
        ),
    ]
)

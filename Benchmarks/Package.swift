// swift-tools-version:6.0
// Measures Limelight side by side with its peers in the same run. Separate from the main package so
// the main build stays lean: `make bench` builds it in release mode and runs it.
import PackageDescription

let package = Package(
    name: "LimelightBenchmarks",
    dependencies: [.package(path: "..")],
    targets: [
        .systemLibrary(name: "CSQLiteBench", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "limelight-bench",
            dependencies: [.product(name: "LimelightData", package: "Limelight"), "CSQLiteBench"]
        ),
    ]
)

// swift-tools-version:6.0
// Measures Limelight side by side with its peers in the same run. Separate from the main package so
// the main build stays lean: `make bench` builds it in release mode and runs it.
import PackageDescription

// A path dependency is known by its folder's name, whatever the checkout is called.
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "Limelight"

let package = Package(
    name: "LimelightBenchmarks",
    dependencies: [
        .package(path: ".."),
        // A peer only: GRDB never enters the main package.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLiteBench", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The raw Xapian peer: indexes the benchmark text with TermGenerator and waits for terms to
        // become searchable in any Xapian database (Limelight's or recoll's).
        .executableTarget(
            name: "xapian-peer",
            linkerSettings: [.linkedLibrary("xapian")]
        ),
        .executableTarget(
            name: "limelight-bench",
            dependencies: [
                .product(name: "LimelightData", package: root),
                .product(name: "LimelightSearch", package: root),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLiteBench",
            ]
        ),
    ],
    cxxLanguageStandard: .cxx17
)

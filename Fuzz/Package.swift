// swift-tools-version:6.0
// Coverage-guided fuzzing of every reader of outside input, one libFuzzer program per reader.
// Separate from the main package: `make fuzz` builds it with `--sanitize=fuzzer`, which
// instruments the readers for coverage and links libFuzzer's driver into each program.
import PackageDescription

// A path dependency is known by its folder's name, whatever the checkout is called.
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "Limelight"

/// A fuzz program: one file defining `LLVMFuzzerTestOneInput`, no `main` of its own.
func fuzzTarget(_ name: String, search: Bool = false) -> Target {
    var dependencies: [Target.Dependency] = ["FuzzSupport", .product(name: "LimelightData", package: root)]
    if search { dependencies.append(.product(name: "LimelightSearch", package: root)) }
    return .executableTarget(name: name, dependencies: dependencies, swiftSettings: [.unsafeFlags(["-parse-as-library"])])
}

let package = Package(
    name: "LimelightFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "LimelightData", package: root)]),
        fuzzTarget("fuzz-property-list"),
        fuzzTarget("fuzz-compiled-model"),
        fuzzTarget("fuzz-model-cache"),
        fuzzTarget("fuzz-model-xml"),
        fuzzTarget("fuzz-xml-store"),
        fuzzTarget("fuzz-mapping-model"),
        fuzzTarget("fuzz-predicate"),
        fuzzTarget("fuzz-marker-path", search: true),
        fuzzTarget("fuzz-marker-file"),
        fuzzTarget("fuzz-importer-line", search: true),
        fuzzTarget("fuzz-search-wire", search: true),
        fuzzTarget("fuzz-transformable"),
        fuzzTarget("fuzz-store-file"),
        fuzzTarget("fuzz-store-metadata"),
        fuzzTarget("fuzz-model-store"),
    ]
)

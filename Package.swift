// swift-tools-version:6.0
import PackageDescription

// lld links the programs: `make build-release` links the Swift runtime and Foundation into them
// statically, and the default gold linker warns about a glibc function the static Foundation uses.
let programLinking: [LinkerSetting] = [.unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux]))]
// The indexing programs allocate with jemalloc. Xapian's writer makes and frees millions of small
// strings and map nodes, and under glibc's malloc that took about a seventh of a bulk index's
// CPU (consolidating and unlinking free chunks); jemalloc takes 12–20% off the wall time.
let indexerLinking = programLinking + [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]

let package = Package(
    name: "Limelight",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LimelightData", targets: ["LimelightData"]),
        .library(name: "LimelightSearch", targets: ["LimelightSearch"]),
        .library(name: "LimelightClassGeneration", targets: ["LimelightClassGeneration"]),
        // Generates the ManagedObject subclasses of a target's Xcode models at build time.
        .plugin(name: "ManagedObjectClasses", targets: ["ManagedObjectClasses"]),
        .executable(name: "limelight", targets: ["limelight"]),
        .executable(name: "limelightd", targets: ["limelightd"]),
        .executable(name: "limelight-search-provider", targets: ["limelight-search-provider"]),
        .executable(name: "cookbook", targets: ["cookbook"]),
        .executable(name: "cookbook-importer", targets: ["cookbook-importer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Core Data keeps a store's model compressed with deflate (`Z_MODELCACHE`).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "LimelightData",
            dependencies: [
                "CSQLite",
                "CZlib",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "CXapian",
            linkerSettings: [.linkedLibrary("xapian")]
        ),
        .target(
            name: "LimelightSearch",
            dependencies: [
                "LimelightData",
                "CXapian",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Swift source of a model's ManagedObject subclasses, as Xcode's code generation writes them.
        .target(name: "LimelightClassGeneration", dependencies: ["LimelightData"]),
        // The program the build-tool plugin runs (built for the machine that builds).
        .executableTarget(
            name: "limelight-generate-classes",
            dependencies: [
                "LimelightClassGeneration",
                "LimelightData",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: programLinking
        ),
        .plugin(
            name: "ManagedObjectClasses",
            capability: .buildTool(),
            dependencies: ["limelight-generate-classes"]
        ),
        // Opening records with the application registered for their type: `limelight open` and
        // the desktop search provider share it.
        .target(
            name: "LimelightDesktop",
            dependencies: ["LimelightData"]
        ),
        // sd-bus, from libsystemd: the search provider's D-Bus connection.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // The provider's sd-bus vtables, which are made with C macros Swift cannot import.
        .target(
            name: "CSearchProviderVtables",
            dependencies: ["CSystemd"]
        ),
        .executableTarget(
            name: "limelight-search-provider",
            dependencies: [
                "LimelightData",
                "LimelightSearch",
                "LimelightDesktop",
                "CSystemd",
                "CSearchProviderVtables",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: programLinking
        ),
        .executableTarget(
            name: "limelight",
            dependencies: [
                "LimelightData",
                "LimelightSearch",
                "LimelightClassGeneration",
                "LimelightDesktop",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: indexerLinking
        ),
        .executableTarget(
            name: "limelightd",
            dependencies: [
                "LimelightSearch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: indexerLinking
        ),
        // Its Ingredient class and Recipe's properties are generated from its model
        // (Sources/cookbook/Cookbook.xcdatamodeld, a link to the one in share/) by the plugin.
        .executableTarget(
            name: "cookbook",
            dependencies: [
                "LimelightData",
                "LimelightSearch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: programLinking,
            plugins: ["ManagedObjectClasses"]
        ),
        .executableTarget(
            name: "cookbook-importer",
            dependencies: [
                "LimelightData",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Importers/Cookbook",
            linkerSettings: programLinking
        ),
        // Saves in a loop until killed, for the marker crash test.
        .executableTarget(name: "limelight-stress", dependencies: ["LimelightData"], path: "Tests/Tools/MarkerStress",
                         linkerSettings: programLinking),
        // Random and mutated format strings against the predicate parser, evaluator and SQL, for a time or a count.
        .target(name: "PredicateFixtures", dependencies: ["LimelightData"], path: "Tests/Tools/PredicateFixtures"),
        .executableTarget(name: "limelight-predicate-fuzz", dependencies: ["LimelightData", "PredicateFixtures"], path: "Tests/Tools/PredicateFuzz",
                         linkerSettings: programLinking),
        // The test targets' temporary folders, which close the stores in them before they go.
        .target(name: "ScratchFolders", dependencies: ["LimelightData"], path: "Tests/Tools/ScratchFolders"),
        .testTarget(name: "LimelightDataTests", dependencies: ["LimelightData", "PredicateFixtures", "ScratchFolders"]),
        .testTarget(name: "LimelightSearchTests", dependencies: ["LimelightSearch", "LimelightData", "ScratchFolders"]),
        .testTarget(name: "EndToEndTests", dependencies: ["LimelightData"]),
        // Its fixture models' classes are generated by the plugin, and the tests use them.
        .testTarget(name: "LimelightClassGenerationTests", dependencies: ["LimelightClassGeneration", "LimelightData"],
                    plugins: ["ManagedObjectClasses"]),
    ],
    cxxLanguageStandard: .cxx17
)

import Foundation
import Testing

/// `limelight model MODEL --swift`: the source it prints type-checks, with strict concurrency and
/// warnings as errors, against the LimelightData module the tests were built with.
@Suite struct ModelSwiftCommandTests {
    static let fixture = Harness.packageRoot.appendingPathComponent("Tests/LimelightClassGenerationTests/Fixtures/Generated.xcdatamodeld")

    /// Runs `swiftc -typecheck` on `files` against the built modules (`Modules` in the build folder,
    /// and the module maps of the C libraries LimelightData imports).
    static func typecheck(_ harness: Harness, _ files: [URL]) throws -> Harness.Result {
        let root = Harness.packageRoot
        let arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-warnings-as-errors",
                         "-I", harness.bin.appendingPathComponent("Modules").path,
                         "-I", root.appendingPathComponent("Sources/CSQLite").path,
                         "-I", root.appendingPathComponent("Sources/CZlib").path] + files.map(\.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        // The driver makes a folder in $TMPDIR for each run and leaves it (TemporaryDirectory.*,
        // holding `.keep-directory`): in the harness's home, it goes with the home.
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = harness.home.path
        process.environment = environment
        let errors = harness.home.appendingPathComponent("swiftc-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let handle = try FileHandle(forWritingTo: errors)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return Harness.Result(status: process.terminationStatus, stdout: "",
                              stderr: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }

    @Test func generatedSourceTypeChecksAndUsesTheClasses() throws {
        let harness = try Harness()
        let printed = try harness.run("limelight", ["model", Self.fixture.path, "--swift", "--public", "--all-entities"]).stdout
        let generated = harness.home.appendingPathComponent("GeneratedModelClasses.swift")
        try harness.run("limelight", ["model", Self.fixture.path, "--swift", "--public", "--all-entities", "--output", generated.path])
        #expect(try String(contentsOf: generated, encoding: .utf8) == printed)
        #expect(printed.hasPrefix("// Generated from Generated.xcdatamodeld"))

        // The application's side: its class for the category entity, and code using the classes.
        let application = harness.home.appendingPathComponent("Application.swift")
        try Data("""
            import Foundation
            import LimelightData

            public final class Owner: ManagedObject {}

            // Many Core Data apps have a protocol of this name for their classes; the generated
            // classes' wrapper must not be taken for it.
            public protocol Managed: AnyObject { static var entityName: String { get } }
            extension Sample: Managed { public static var entityName: String { "Sample" } }

            func use(_ sample: Sample, _ owner: Owner, _ photo: Photo) {
                sample.int16Scalar += 1
                sample.default = "x"
                sample.steps = sample.steps.reversed()
                sample.labels.removeAll()
                let tags: [String]? = sample.tags
                owner.favorites.append(contentsOf: sample.steps)
                owner.name = tags?.first
                let media: MediaItem = photo
                media.title = "t"
                let hidden: GeneratedHidden = Visible(entity: sample.entity, insertInto: nil)
                hidden.secret = nil
                GeneratedModelClasses.register()
            }

            // Requests run for their effect leave their answers unread without a warning, as
            // Core Data's `execute` does.
            func trim(_ context: ManagedObjectContext, _ ids: [ManagedObjectID]) throws {
                try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: Date()))
                try context.execute(BatchDeleteRequest(objectIDs: ids))
            }

            """.utf8).write(to: application)
        let checked = try Self.typecheck(harness, [generated, application])
        #expect(checked.status == 0, "\(checked.stderr)")

        // The check is a real one: a wrong type in the application's code fails it.
        let wrong = harness.home.appendingPathComponent("Wrong.swift")
        try Data("import LimelightData\nfunc wrong(_ sample: Sample) -> Int { sample.int16Scalar }\n".utf8).write(to: wrong)
        let failed = try Self.typecheck(harness, [generated, application, wrong])
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("Int16"))
    }

    @Test func aModelThatCannotBeGeneratedIsAnErrorNamingTheEntity() throws {
        let harness = try Harness()
        let bundle = harness.home.appendingPathComponent("Bad.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Order" representedClassName="My-Order" codeGenerationType="class">
                    <attribute name="code" optional="YES" attributeType="String"/>
                </entity>
            </model>
            """.utf8).write(to: bundle.appendingPathComponent("contents"))
        let output = harness.home.appendingPathComponent("Bad.swift")
        let result = try harness.run("limelight", ["model", bundle.path, "--swift", "--output", output.path], allowFailure: true)
        #expect(result.status == 1)
        #expect(result.stderr.contains("entity Order: its class name 'My-Order' is not a Swift identifier"))
        #expect(!FileManager.default.fileExists(atPath: output.path))

        let misuse = try harness.run("limelight", ["model", bundle.path, "--public"], allowFailure: true)
        #expect(misuse.status != 0)
        #expect(misuse.stderr.contains("--public, --all-entities and --output go with --swift"))
    }
}

import Foundation
import Testing
@testable import LimelightData

/// The versions of an `.xcdatamodeld` bundle come in the order Xcode numbers them.
struct ModelVersionOrderTests {
    /// Version `number` of a notes model: each version adds an attribute named after it.
    static func notes(version number: Int) -> ManagedObjectModel {
        let properties = (1...number).map { AttributeDescription(name: "field\($0)", type: .string) }
        return ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: properties)])
    }

    /// `Notes.xcdatamodeld` with Xcode's version names (`Notes`, `Notes 2` …) and no
    /// `.xccurrentversion`, as bundles copied without it or made by hand have.
    static func bundle(versions: [Int], in folder: TemporaryFolder) throws -> URL {
        let bundle = folder.file("Notes.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        for number in versions {
            let name = number == 1 ? "Notes" : "Notes \(number)"
            try notes(version: number).write(to: bundle.appendingPathComponent("\(name).xcdatamodel"))
        }
        try? FileManager.default.removeItem(at: bundle.appendingPathComponent(".xccurrentversion"))
        return bundle
    }

    @Test func theFirstVersionComesFirstAndNumbersCountAsNumbers() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(versions: [1, 2, 9, 10], in: folder)
        let names = try ManagedObjectModel.loadVersions(inBundle: bundle).map(\.name)
        #expect(names == ["Notes", "Notes 2", "Notes 9", "Notes 10"])
    }

    @Test func withoutCurrentVersionFileTheNewestVersionOpens() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(versions: [1, 2, 10], in: folder)
        #expect(try ManagedObjectModel.currentVersionName(inBundle: bundle) == "Notes 10")
        let model = try ManagedObjectModel(contentsOf: bundle)
        #expect(model.entity(named: "Note")?.property(named: "field10") != nil)
    }

    @Test func namedVersionsCompareByTheirNumbers() {
        let names = ["0.6.10", "Shared", "0.6", "0.5", "0.6.7", "1.10", "1.9", "v2", "v10"]
        let sorted = names.sorted(by: ModelVersionOrder.precedes)
        #expect(sorted == ["0.5", "0.6", "0.6.7", "0.6.10", "1.9", "1.10", "Shared", "v2", "v10"])
    }
}

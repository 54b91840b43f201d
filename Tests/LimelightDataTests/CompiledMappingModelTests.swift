import Foundation
import Testing
@testable import LimelightData

/// Compiled mapping models (`.cdm`): read with Core Data's keys, found in bundles by the version
/// hashes they record, and followed as the same mapping written in code is.
@Suite struct CompiledMappingModelTests {
    @Test func aCompiledMappingModelIsReadAndFollowed() throws {
        let folder = try TemporaryFolder()
        let resources = folder.file("App.resources")
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        try SplitVersions.compiledMapping().write(to: resources.appendingPathComponent("SplitV1toV2.cdm"))
        let bundle = try #require(Bundle(url: resources))
        let policies: [EntityMigrationPolicy.Type] = [AddressPolicy.self, ShoutPolicy.self]
        let v1 = SplitVersions.version1(), v2 = SplitVersions.version2()
        let mapping = try #require(try MappingModel(from: [bundle], forSourceModel: v1, destinationModel: v2, policies: policies))
        #expect(try MappingModel(from: [bundle], forSourceModel: v2, destinationModel: v2, policies: policies) == nil)

        let byName = mapping.entityMappingsByName
        #expect(byName.keys.sorted() == ["Address", "NoteToNote", "PersonToPerson", "ProductToProduct"])
        let notes = try #require(byName["NoteToNote"])
        #expect(notes.mappingType == .transform && notes.entityMigrationPolicy == ShoutPolicy.self)
        #expect(notes.attributeMappings.map { $0.valueExpression?.description } == ["$source.text", "FUNCTION($entityPolicy, \"shout:\", $source.text)"])
        #expect(notes.attributeMappings.last?.userInfo?["computed"] as? String == "yes")
        #expect(byName["PersonToPerson"]?.entityMigrationPolicy == AddressPolicy.self)
        #expect(byName["ProductToProduct"]?.sourceExpression?.description == "FETCH(FUNCTION($manager, "
                + "\"fetchRequestForSourceEntityNamed:predicateString:\", \"Product\", \"priceInCents > 0\"), $manager.sourceContext, NO)")
        #expect(byName["ProductToProduct"]?.attributeMappings.last?.valueExpression?.description == "($source.priceInCents / 100.0)")

        let source = folder.file("book.sqlite"), destination = folder.file("book-v2.sqlite")
        try SplitVersions.makeStore(at: source)
        try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(from: source, with: mapping, toDestinationURL: destination)
        #expect(try ObjectMigrationTests().summary(destination) == [
            "Ann at 1 Main Street wrote [\"again\", \"hello\"]", "Bob at - wrote [\"hi\"]",
            "again AGAIN! by Ann", "hello HELLO! by Ann", "hi HI! by Bob", "tea 2.5", "addresses: 1",
        ])
    }

    @Test func aPolicyTheArchiveNamesButNobodyGaveIsAnError() throws {
        var message = ""
        do {
            _ = try MappingModel(archiveData: try SplitVersions.compiledMapping(), source: "Split.cdm", policies: [ShoutPolicy.self])
        } catch let error as MissingMigrationPolicyError {
            message = "\(error)"
        }
        #expect(message.contains("SplitApp.AddressPolicy") && message.contains("PersonToPerson") && message.contains("Split.cdm"))
        #expect(throws: ModelError.self) { try MappingModel(archiveData: Data("not an archive".utf8), source: "junk.cdm") }
    }
}

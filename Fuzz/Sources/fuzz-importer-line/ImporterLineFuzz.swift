// The JSON lines importer programs print, one index record each: decoded, made into a Xapian
// document as the indexer makes it, and added to a real index.
import Foundation
import FuzzSupport
import LimelightData
@testable import LimelightSearch

let scratch = FuzzFixtures.scratch("fuzz-importer-line")
nonisolated(unsafe) let indexer = try? Indexer(indexPath: scratch.appendingPathComponent("index"), importerDirectories: [])
nonisolated(unsafe) let builder = try? DocumentBuilder(language: "english")
nonisolated(unsafe) let index = try? SearchIndex(path: scratch.appendingPathComponent("documents").path)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImporterLine(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let indexer, let builder, let index else { FuzzSeeds.giveUp("the importer fuzz index cannot be made") }
    guard let record = try? JSONDecoder().decode(IndexRecord.self, from: FuzzSeeds.data(bytes, count)),
          let document = try? indexer.document(for: record, markerTime: 1), let built = try? builder.build(document) else { return 0 }
    _ = try? index.replaceDocument(built)
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        let records = [
            IndexRecord(marker: "/r/6B1F7A52/Recipe/1.recipe", displayName: "Salsa", text: "tomato onion",
                        fields: ["name": "Salsa verde", "notes": "spicy"], values: ["servings": .number(4), "cuisine": .text("Mexican")]),
            IndexRecord(marker: "/r/6B1F7A52/Recipe/2.recipe", uri: "x-coredata://6B1F7A52/Recipe/p2", entity: "Recipe", store: "6B1F7A52"),
            IndexRecord(marker: "/r/6B1F7A52/Recipe/3.recipe", error: "cannot read"),
            IndexRecord(marker: "/r/6B1F7A52/Recipe/4.recipe", excluded: true),
            IndexRecord(marker: ""),
        ]
        return try records.map { try JSONEncoder().encode($0) }
    }
    return 0
}

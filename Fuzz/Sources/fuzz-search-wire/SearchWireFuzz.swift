// Requests on limelightd's search socket, as the daemon reads them: a search request is run
// against a real index; index requests and replies are decoded.
import Foundation
import FuzzSupport
@testable import LimelightData
@testable import LimelightSearch

let scratch = FuzzFixtures.scratch("fuzz-search-wire")
let indexPath = scratch.appendingPathComponent("index")
nonisolated(unsafe) let service: SearchService? = {
    do {
        let index = try SearchIndex(path: indexPath.path)
        let data = IndexLayout.DocumentData(marker: "/r/6B1F7A52/Recipe/1.recipe", uri: "x-coredata://6B1F7A52/Recipe/p1", entity: "Recipe",
                                            store: "6B1F7A52", displayName: "Salsa")
        try index.replaceDocument(IndexDocument(uniqueTerm: "Qx-coredata://6B1F7A52/Recipe/p1",
                                                booleanTerms: [IndexLayout.booleanTerm(IndexLayout.entityPrefix, "Recipe")],
                                                fields: [(IndexLayout.fieldPrefix("name"), "salsa verde"), ("", "tomato")],
                                                values: [IndexLayout.displayNameSlot: Data("salsa".utf8), 10: Data("4".utf8)],
                                                data: data.json()))
        try index.setMetadata("name", forKey: IndexLayout.fieldsKey)
        try index.setMetadata("servings=10", forKey: IndexLayout.slotsKey)
        try index.commit()
        try index.close()
        return try SearchService(indexPath: indexPath, keepsStoresOpen: true)
    } catch {
        FileHandle.standardError.write(Data("cannot make the search index: \(error)\n".utf8))
        return nil
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSearchWire(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let service else { FuzzSeeds.giveUp("the search fuzz index cannot be made") }
    let message = Array(UnsafeBufferPointer(start: bytes, count: count))
    if let (request, _) = SearchWireFormat.decodeRequest(message) {
        defer { service.releaseObjects() }
        _ = try? service.reply(to: request)
    }
    _ = IndexRequest.decode(message)
    _ = IndexRequest.decodeReply(message)
    _ = SearchWireFormat.decodeReply(message)
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        var options = SearchService.Options(query: "salsa")
        var seeds = [SearchWireFormat.encode(SearchRequest(options: options), indexPath: indexPath.path)]
        options.query = "name:salsa AND tomato"
        options.sort = "-servings"
        options.limit = 5
        options.offset = 1
        seeds.append(SearchWireFormat.encode(SearchRequest(options: options, count: true, json: true), indexPath: "/elsewhere"))
        seeds.append(SearchWireFormat.encode(SearchReply(output: "a\n", errorOutput: "", failure: nil)))
        seeds.append(SearchWireFormat.encodeDeclined("no"))
        return seeds.map { Data($0) }
    }
    return 0
}

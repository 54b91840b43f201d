// Marker file contents (a property list per object), read as the generic importer reads them.
import Foundation
import FuzzSupport
@testable import LimelightData

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMarkerFile(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let content = try? MarkerContent.decode(FuzzSeeds.data(bytes, count), path: "1.rec") else { return 0 }
    // What the generic importer and the index make of it.
    for value in content.values.values { _ = IndexedTexts.text(of: value) }
    if case .attributes(let set)? = content.spotlight { _ = (set.searchableTexts, set.displayName ?? set.title) }
    _ = try? content.encoded(format: .binary)
    _ = try? content.encoded(format: .xml)
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        var content = MarkerContent(objectURI: "x-coredata://6B1F7A52/Item/p1", entityName: "Item", storeIdentifier: "6B1F7A52",
                                    values: ["name": "Crème", "score": 3, "price": 2.5, "created": Date(timeIntervalSinceReferenceDate: 5),
                                             "blob": Data([1, 2]), "tags": ["a", "b"], "flag": true])
        var attributes = SearchableItemAttributeSet()
        attributes.title = "Crème"
        attributes.textContent = "tomato"
        content.spotlight = .attributes(attributes)
        var seeds = [try content.encoded(format: .binary), try content.encoded(format: .xml)]
        content.spotlight = .excluded
        seeds.append(try content.encoded(format: .binary))
        return seeds
    }
    return 0
}

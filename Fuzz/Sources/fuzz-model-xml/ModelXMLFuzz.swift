// Model XML (an .xcdatamodel's contents file); a model read is also compiled, as a new store
// keeps it in its model cache.
import Foundation
import FuzzSupport
@testable import LimelightData

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelXML(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let model = try? ManagedObjectModel(xmlData: FuzzSeeds.data(bytes, count), source: "contents") else { return 0 }
    _ = try? CompiledModelWriter.archive(of: model)
    _ = model.entityVersionHashesByName
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        try FuzzFixtures.modelContents().map { try Data(contentsOf: $0) }
    }
    return 0
}

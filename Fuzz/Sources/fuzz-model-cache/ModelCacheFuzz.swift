// A store's model cache (Z_MODELCACHE): a deflated keyed archive, inflated then read.
import Foundation
import FuzzSupport
@testable import LimelightData

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelCache(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let archive = try? Deflate.decompress(FuzzSeeds.data(bytes, count)) else { return 0 }
    _ = try? ManagedObjectModel(archiveData: archive, source: "Z_MODELCACHE")
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        try FuzzFixtures.modelContents().map { try CompiledModelWriter.modelCache(for: ManagedObjectModel(contentsOf: $0)) }
            + [try Deflate.compress(Data(repeating: 0, count: 4096)), try Deflate.compress(Data())]
    }
    return 0
}

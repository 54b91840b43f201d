// Property lists, binary and XML: store metadata (Z_METADATA), marker files, version info.
import Foundation
import FuzzSupport
@testable import LimelightData

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPropertyList(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = try? PropertyListReader.read(FuzzSeeds.data(bytes, count))
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        let values: [Any] = [
            ["NSStoreType": "SQLite", "NSStoreUUID": "A5E1F0B6", "NSPersistenceFrameworkVersion": 1,
             "NSStoreModelVersionHashes": ["Item": Data(repeating: 7, count: 32)], "big": UInt64.max, "negative": -5,
             "when": Date(timeIntervalSinceReferenceDate: 1e6), "ratio": 2.5, "flag": true, "none": [String]()] as [String: Any],
            ["a", "é ü 👍", 1, [1, [2, [3]]], ["k": ["v"]]] as [Any],
            PropertyListUID(3),
        ]
        var seeds = try values.flatMap { [try PropertyListWriter.data($0, format: .binary), try PropertyListWriter.data($0, format: .xml)] }
        for contents in FuzzFixtures.modelContents().prefix(2) {
            seeds.append(try CompiledModelWriter.archive(of: ManagedObjectModel(contentsOf: contents)))
        }
        return seeds
    }
    return 0
}

// Transformable attribute values as Core Data keeps them: keyed archives, read through Core
// Data's default transformer (`NSSecureUnarchiveFromData`).
import Foundation
import FuzzSupport
@testable import LimelightData

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTransformable(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = try? KeyedArchiveTransformer.transformer.decode(FuzzSeeds.data(bytes, count))
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        let values: [Any] = [["red", "green"], ["name": "Ann", "age": 42, "when": Date(timeIntervalSinceReferenceDate: 0)] as [String: Any],
                             URL(string: "https://example.com/a?b=c") as Any, UUID(), Data([1, 2, 3]), Set(["a", "b"]), 2.5, "plain"]
        return try values.map { try KeyedArchiveTransformer.transformer.encode($0) }
    }
    return 0
}

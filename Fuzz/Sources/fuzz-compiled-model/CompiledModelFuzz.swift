// Compiled models (.mom files, keyed archives of NSManagedObjectModel) and compiled mapping
// models (.cdm files), read as apps ship them.
import Foundation
import FuzzSupport
@testable import LimelightData

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompiledModel(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = FuzzSeeds.data(bytes, count)
    if let model = try? ManagedObjectModel(archiveData: data, source: "fuzz.mom") {
        _ = model.entityVersionHashesByName
    }
    _ = try? MappingModel(archiveData: data, source: "fuzz.cdm")
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        try FuzzFixtures.modelContents().map { try CompiledModelWriter.archive(of: ManagedObjectModel(contentsOf: $0)) }
            + [try CompiledModelWriter.archive(of: FuzzModel.make())]
    }
    return 0
}

// Xcode mapping models (an .xcmappingmodel's xcmapping.xml), compiled against the two versions
// of the fixtures' shop model.
import Foundation
import FuzzSupport
@testable import LimelightData

let shop = FuzzFixtures.folder.appendingPathComponent("xcmapping/Shop", isDirectory: true)
let models = (try? ManagedObjectModel(contentsOf: shop.appendingPathComponent("Shop.xcdatamodeld/Shop.xcdatamodel")),
                                  try? ManagedObjectModel(contentsOf: shop.appendingPathComponent("Shop.xcdatamodeld/Shop 2.xcdatamodel")))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMappingModel(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let source = models.0, let destination = models.1 else { FuzzSeeds.giveUp("the shop fixture models do not read") }
    _ = try? MappingModel(xcmappingData: FuzzSeeds.data(bytes, count), source: "xcmapping.xml", sourceModel: source, destinationModel: destination)
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        [try Data(contentsOf: shop.appendingPathComponent("ShopToShop2.xcmappingmodel/xcmapping.xml"))]
    }
    return 0
}

// Marker paths, as the daemon and `limelight` get them: decoded against a real records folder,
// and taken apart by the index's layout.
import Foundation
import FuzzSupport
@testable import LimelightData
@testable import LimelightSearch

let store = "6B1F7A52-3C1D-4C0B-9E59-0D2A4F4E8C11"
let root: URL = {
    let root = FuzzFixtures.scratch("fuzz-marker-path").appendingPathComponent(store, isDirectory: true)
    let support = root.appendingPathComponent(SupportFolder.name, isDirectory: true)
    try? FileManager.default.createDirectory(at: support, withIntermediateDirectories: true)
    try? FileManager.default.createDirectory(at: root.appendingPathComponent("Item", isDirectory: true), withIntermediateDirectories: true)
    let info: [String: Any] = ["extension": "rec", "storeUUID": store, "entities": ["Item", "Tag"]]
    try? PropertyListWriter.data(info, format: .binary).write(to: support.appendingPathComponent(SupportFolder.infoFile))
    try? Data((root.deletingLastPathComponent().appendingPathComponent("store.sqlite").path + "\n").utf8)
        .write(to: support.appendingPathComponent(SupportFolder.storePathFile))
    try? Data().write(to: root.appendingPathComponent("Item/1.rec"))
    return root
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMarkerPath(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let decoder = ExternalRecordPathDecoder(roots: [store: root])
    for path in [root.path + "/" + text, text] {
        _ = try? decoder.decode(path)
        _ = IndexLayout.objectURI(forMarker: path)
        _ = IndexLayout.fileExtension(ofMarker: path)
        _ = IndexLayout.MarkerParts(path)
    }
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSeeds.writeIfAsked {
        ["Item/1.rec", "Item/2.rec", "Tag/99999999999999999999.rec", "Item/-1.rec", "Item/1", ".limelight/info.plist", "Item//1.rec",
         "Item/./1.rec", "Item/../Item/1.rec", "Other/1.rec", "Item/1.rec/", "Item/0x1.rec", "Item/1.2.rec", "Item/١.rec"].map { Data($0.utf8) }
    }
    return 0
}

import FuzzSupport
@testable import NetReachability

/// SwiftPM's entry point for this executable: libFuzzer's driver on ``fuzz(_:_:)``.
@_cdecl("FuzzNetlink_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// Any bytes a netlink socket could deliver: the parser, and describing what it returns, must
/// neither crash nor read out of bounds (AddressSanitizer watches).
func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: data == nil ? 0 : count))
    let result = NetlinkParser.parse(bytes)
    _ = String(describing: result)
    return 0
}

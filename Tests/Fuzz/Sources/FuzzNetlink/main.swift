import FuzzSupport
@testable import NetReachability

/// Any bytes a netlink socket could deliver: the parser must neither crash nor read out of
/// bounds (AddressSanitizer watches), and must report every message it cannot use as skipped
/// rather than inventing one.
/// SwiftPM's name for this executable's entry point.
@_cdecl("FuzzNetlink_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzOneInput)
}

/// libFuzzer's callback: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let data else { return 0 }
    return fuzz(UnsafeRawPointer(data), count)
}

func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    let result = NetlinkParser.parse(bytes)
    _ = String(describing: result)
    return 0
}

import FuzzSupport
@testable import NetReachability

/// SwiftPM's entry point for this executable: libFuzzer's driver on ``fuzz(_:_:)``.
@_cdecl("FuzzNetlink_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// Any bytes a netlink socket could deliver. Beyond not crashing or reading out of bounds
/// (AddressSanitizer watches), the parser must agree with ``IndependentFrames``, a second reader
/// of netlink's framing written from `netlink(7)` with its own byte arithmetic: the same number of
/// messages, the same malformed tail, the same dump-interrupted flag, and for each message the
/// kind its type names (done, error with its code, link with its index, address, route with its
/// family, or ignored), whatever the attributes hold.
func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: data == nil ? 0 : count))
    let result = NetlinkParser.parse(bytes)
    _ = String(describing: result)
    let frames = IndependentFrames(bytes)
    fuzzCheck(result.messages.count == frames.frames.count, "parser found \(result.messages.count) messages, framing says \(frames.frames.count)")
    fuzzCheck(result.isMalformed == frames.malformed, "malformed: parser \(result.isMalformed), framing \(frames.malformed)")
    fuzzCheck(result.dumpInterrupted == frames.frames.contains { $0.flags & 0x10 != 0 }, "NLM_F_DUMP_INTR disagrees")
    for (message, frame) in zip(result.messages, frames.frames) {
        fuzzCheck(frame.agrees(with: message, in: bytes), "type \(frame.type) at \(frame.offset) parsed as \(message)")
    }
    return 0
}

/// netlink(7) framing read byte by byte: a 16-byte header (length, type, flags, sequence, port;
/// little-endian on this machine), messages 4-byte aligned, a length under 16 or past the end
/// making the rest malformed.
struct IndependentFrames {
    struct Frame {
        let offset: Int, length: Int, type: Int, flags: Int

        /// Whether `message` is what this frame's type says, checked against the raw payload.
        func agrees(with message: NetlinkMessage, in bytes: [UInt8]) -> Bool {
            let payload = offset + 16
            let payloadLength = length - 16
            func little(_ at: Int, _ size: Int) -> Int {
                (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
            }
            switch (type, message) {
            case (3, .done(let code)): return Int(code) == (payloadLength >= 4 ? Int(Int32(truncatingIfNeeded: little(payload, 4))) : 0)
            case (2, .error(let code)): return payloadLength >= 4 && Int(code) == Int(Int32(truncatingIfNeeded: little(payload, 4)))
            case (2, .ignored(let ignored)): return payloadLength < 4 && Int(ignored) == 2
            case (16, .link(let link, let deleted)), (17, .link(let link, let deleted)):
                return payloadLength >= 16 && deleted == (type == 17) && Int(link.index) == Int(Int32(truncatingIfNeeded: little(payload + 4, 4)))
            case (20, .address(_, let deleted)), (21, .address(_, let deleted)):
                return payloadLength >= 8 && deleted == (type == 21)
            case (24, .route(let route, let deleted)), (25, .route(let route, let deleted)):
                return payloadLength >= 12 && deleted == (type == 25) && Int(route.family) == Int(bytes[payload])
            case (_, .ignored(let ignored)):
                // Known types are ignored only when their fixed header is short (or an address
                // names no address); every other type is always ignored.
                guard Int(ignored) == type else { return false }
                switch type {
                case 16, 17: return payloadLength < 16
                case 24, 25: return payloadLength < 12
                case 2, 3: return false
                default: return true
                }
            default: return false
            }
        }
    }

    private(set) var frames: [Frame] = []
    private(set) var malformed = false

    init(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let left = bytes.count - offset
            guard left >= 16 else { malformed = true; return }
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            guard length >= 16, length <= left else { malformed = true; return }
            frames.append(Frame(offset: offset, length: length,
                                type: Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8,
                                flags: Int(bytes[offset + 6]) | Int(bytes[offset + 7]) << 8))
            offset += (length + 3) / 4 * 4
        }
    }
}

import Foundation

/// 64-bit FNV-1a: lets a test server and a test agree on body contents without sending them back.
/// Fed incrementally, so a server can hash a body as it streams in.
package struct FNV1a: Sendable {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    package mutating func add(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    }

    /// The hash of `data` in one go.
    package static func hash(_ data: Data) -> UInt64 {
        var hasher = FNV1a()
        data.withUnsafeBytes { hasher.add($0) }
        return hasher.value
    }
}

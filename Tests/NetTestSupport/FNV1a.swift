import Foundation

/// 64-bit FNV-1a: lets a test server and a test agree on body contents without sending them back.
/// Fed incrementally, so a server can hash a body as it streams in.
package struct FNV1a: Sendable {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    // Optimised even in debug builds: test servers hash megabytes on Swift's cooperative pool,
    // where an unoptimised byte loop held a thread long enough to stall other tests.
    @_optimize(speed)
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

/// The test bodies servers and tests agree on: byte i is i % 251 (a prime, so no power-of-two
/// chunking lines up with the period).
package enum TestPattern {
    /// `count` bytes of the pattern, built by doubling copies rather than byte by byte, so a debug
    /// build makes megabytes in microseconds instead of holding a cooperative thread for seconds.
    package static func bytes(count: Int) -> Data {
        var data = Data((0..<min(count, 251)).map { UInt8($0) })
        while data.count < count { data.append(data.prefix(count - data.count)) }
        return data
    }
}

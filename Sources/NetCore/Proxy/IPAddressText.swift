#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// IP address literals as bytes, for comparing hosts with address ranges without resolving names.
package enum IPAddressText {
    /// The 4 bytes of a dotted IPv4 address or the 16 of an IPv6 one (no brackets, no zone), or
    /// `nil` when `text` is neither.
    package static func bytes(_ text: String) -> [UInt8]? {
        if let v4 = ipv4(text) { return v4 }
        guard text.contains(":") else { return nil }
        var storage = in6_addr()
        let parsed = text.withCString { inet_pton(AF_INET6, $0, &storage) }
        guard parsed == 1 else { return nil }
        return withUnsafeBytes(of: &storage) { Array($0) }
    }

    /// Strict dotted-quad: four decimal parts of 0–255, nothing else (`inet_aton`'s `127.1` is not an
    /// address here, as it is not in a URL).
    private static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }
}

#if os(Linux)
import Glibc

/// An IPv4 or IPv6 address, as the kernel reported it.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    public enum Family: String, Sendable, Hashable {
        /// IPv4: 4 bytes.
        case ipv4
        /// IPv6: 16 bytes.
        case ipv6
    }

    /// The family.
    public let family: Family
    /// The address in network byte order: 4 or 16 bytes.
    public let bytes: [UInt8]

    /// Wraps 4 bytes as IPv4 or 16 as IPv6; `nil` for any other length.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4: family = .ipv4
        case 16: family = .ipv6
        default: return nil
        }
        self.bytes = bytes
    }

    /// Wraps bytes of a netlink `AF_INET`/`AF_INET6` attribute; `nil` if the length does not match.
    init?(family: UInt8, bytes: [UInt8]) {
        switch (Int32(family), bytes.count) {
        case (AF_INET, 4), (AF_INET6, 16): self.init(bytes: bytes)
        default: return nil
        }
    }

    /// The usual text form: `192.0.2.1`, `2001:db8::1`.
    public var description: String {
        let family = self.family == .ipv4 ? AF_INET : AF_INET6
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let formatted = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count)) != nil
        }
        guard formatted else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif

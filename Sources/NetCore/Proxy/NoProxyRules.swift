#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The hosts that bypass the proxy: a `NO_PROXY` list, read by curl's rules.
///
/// Entries are separated by commas or white space and compared without regard to case:
/// - `*` matches every host;
/// - a name matches itself and every subdomain: `example.com` and `.example.com` (the leading dot
///   is ignored, as curl 7.86 and later do) both match `example.com` and `api.example.com`, never
///   `notexample.com`; `*.example.com` is read as `.example.com`;
/// - an IP address matches that address literally written in a URL, and `10.0.0.0/8` or
///   `fd00::/8` a whole range (CIDR); names are never resolved to compare them;
/// - a port (`example.com:8080`, `[::1]:8080`, `10.0.0.1:8080`) restricts an entry to URLs with
///   that port. curl ignores ports in `NO_PROXY`; Go, Python and wget honour them, and so does Net.
public struct NoProxyRules: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// One entry of the list.
    enum Entry: Sendable, Hashable {
        case everyHost
        case domain(String, port: Int?)
        case address([UInt8], prefixLength: Int, port: Int?)
    }

    let entries: [Entry]
    /// The list as it was given.
    public let description: String

    /// No host bypasses the proxy.
    public static let none = NoProxyRules("")

    /// Reads a `NO_PROXY`-style list. Entries that fit none of the forms above are ignored, as curl
    /// ignores them.
    public init(_ list: String) {
        description = list
        entries = list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" })
            .compactMap { Self.entry(String($0)) }
    }

    /// Reads a list written as a string literal.
    public init(stringLiteral value: String) { self.init(value) }

    /// Whether a request to `url` goes directly, not through the proxy.
    public func bypassesProxy(for url: URL) -> Bool {
        guard let host = url.host(percentEncoded: false), !entries.isEmpty else { return false }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return bypassesProxy(host: host, port: port)
    }

    /// Whether a request to `host` (a name or an IP address, brackets optional) on `port` goes
    /// directly, not through the proxy.
    public func bypassesProxy(host: String, port: Int) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        let address = IPAddressText.bytes(name)
        return entries.contains { entry in
            switch entry {
            case .everyHost:
                true
            case .domain(let domain, let entryPort):
                (entryPort == nil || entryPort == port) && (name == domain || name.hasSuffix("." + domain))
            case .address(let bytes, let prefixLength, let entryPort):
                (entryPort == nil || entryPort == port) && address.map { Self.matches($0, bytes, prefixLength) } == true
            }
        }
    }

    static func entry(_ raw: String) -> Entry? {
        var text = raw.lowercased()
        if text == "*" { return .everyHost }
        if text.hasPrefix("*.") { text.removeFirst() }
        while text.hasPrefix(".") { text.removeFirst() }
        if text.hasSuffix(".") { text.removeLast() }
        guard !text.isEmpty else { return nil }
        if let slash = text.firstIndex(of: "/") {  // a CIDR range
            guard let bytes = IPAddressText.bytes(String(text[..<slash])),
                  let length = Int(text[text.index(after: slash)...]), (0...bytes.count * 8).contains(length) else { return nil }
            return .address(bytes, prefixLength: length, port: nil)
        }
        var host = text
        var port: Int?
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {  // [v6] or [v6]:port
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") {
                guard let value = Int(rest.dropFirst()), (1...65535).contains(value) else { return nil }
                port = value
            } else if !rest.isEmpty {
                return nil
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {  // name:port or v4:port
            guard let value = Int(text[text.index(after: colon)...]), (1...65535).contains(value) else { return nil }
            host = String(text[..<colon])
            port = value
        }
        if let bytes = IPAddressText.bytes(host) {
            return .address(bytes, prefixLength: bytes.count * 8, port: port)
        }
        guard !host.contains(":"), !host.isEmpty else { return nil }
        return .domain(host, port: port)
    }

    static func matches(_ address: [UInt8], _ network: [UInt8], _ prefixLength: Int) -> Bool {
        guard address.count == network.count else { return false }
        var remaining = prefixLength
        for (lhs, rhs) in zip(address, network) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if lhs & mask != rhs & mask { return false }
            remaining -= bits
        }
        return true
    }
}

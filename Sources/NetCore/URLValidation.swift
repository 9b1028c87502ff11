#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns user strings into URLs that a transport can send, or says exactly why not.
enum URLValidation {
    static let supportedSchemes: Set<String> = ["http", "https"]

    /// Parses an absolute http(s) URL. Characters that may not appear in a URL (non-ASCII text,
    /// `"`, `<`, `{`, …) are percent-encoded as browsers do; escapes already present are kept byte
    /// for byte; whitespace and control characters are refused because they are almost always a
    /// mistake (an unencoded query value, a stray newline from a file).
    static func parse(_ string: String) throws -> URL {
        guard !string.isEmpty else { throw invalid(string, .empty) }
        if string.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            throw invalid(string, .containsWhitespaceOrControlCharacter)
        }
        if let authority = authorityRange(in: string).map({ string[$0] }), !authority.allSatisfy(\.isASCII) {
            throw invalid(string, .nonASCIIHost)
        }
        try validatePort(in: string, shown: string)
        guard let url = URL(string: PercentEncoding.escapeInvalidURLCharacters(string)) else {
            throw invalid(string, .malformed)
        }
        try validate(url, original: string)
        return url
    }

    /// Checks that a URL is absolute, uses http or https and names a host.
    static func validate(_ url: URL, original: String? = nil) throws {
        var text = url.absoluteString
        // The common case in one pass over the bytes, without Foundation's `scheme` and `host`
        // (which parse and decode on every call: every request is validated when built and when
        // sent); anything else (an IP literal, a port to refuse, no host) takes the checks below,
        // which name what is wrong.
        if text.withUTF8(isPlainHTTP) { return }
        let shown = original ?? text
        guard let scheme = url.scheme, !scheme.isEmpty else { throw invalid(shown, .missingScheme) }
        guard supportedSchemes.contains(scheme.lowercased()) else {
            throw invalid(shown, .unsupportedScheme(scheme))
        }
        try validatePort(in: text, shown: shown)
        guard let host = url.host, !host.isEmpty else { throw invalid(shown, .missingHost) }
    }

    /// Whether `bytes` are `http://` or `https://`, then an authority whose host (after any
    /// user info) is a non-empty name, and whose port, if any, is empty or 1–65535: what the
    /// checks below accept, for the URLs almost every request has.
    private static func isPlainHTTP(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Byte by byte: `starts(with:)` over a string's UTF-8 view cost half of this function.
        func byte(_ index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }
        guard byte(0) == UInt8(ascii: "h"), byte(1) == UInt8(ascii: "t"), byte(2) == UInt8(ascii: "t"),
              byte(3) == UInt8(ascii: "p") else { return false }
        let afterScheme = byte(4) == UInt8(ascii: "s") ? 5 : 4
        guard byte(afterScheme) == UInt8(ascii: ":"), byte(afterScheme + 1) == UInt8(ascii: "/"),
              byte(afterScheme + 2) == UInt8(ascii: "/") else { return false }
        let start = afterScheme + 3
        var end = start, host = start
        var colon: Int?
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { host = end + 1; colon = nil }  // user info ends at the last `@`
            if byte == UInt8(ascii: ":") { colon = end }
            end += 1
        }
        guard host < end, bytes[host] != UInt8(ascii: "[") else { return false }  // no host, or an IP literal
        guard let colon else { return true }
        guard colon > host else { return false }  // a port without a host
        guard colon + 1 < end else { return true }  // `host:`: the default port
        var port = 0
        for index in (colon + 1)..<end {
            let byte = bytes[index]
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
            port = port * 10 + Int(byte - UInt8(ascii: "0"))
            guard port <= 65_535 else { return false }
        }
        return port >= 1
    }

    /// The port, if the URL names one, must be 1–65535. Read from the text, because Foundation
    /// keeps 99999 (which AsyncHTTPClient's NIO traps on, and which wraps to 34463 elsewhere) and
    /// silently drops a port too long for an `Int`. An empty port (`host:/`) means the default.
    /// Scanned as UTF-8 bytes: every delimiter is ASCII, and this runs for every request.
    private static func validatePort(in string: String, shown: String) throws {
        guard let authorityRange = authorityRange(in: string) else { return }
        var hostAndPort = string.utf8[authorityRange]
        if let userInfoEnd = hostAndPort.lastIndex(of: UInt8(ascii: "@")) { hostAndPort = hostAndPort[hostAndPort.index(after: userInfoEnd)...] }
        if let literalEnd = hostAndPort.lastIndex(of: UInt8(ascii: "]")) { hostAndPort = hostAndPort[hostAndPort.index(after: literalEnd)...] }
        guard let colon = hostAndPort.lastIndex(of: UInt8(ascii: ":")) else { return }
        let port = hostAndPort[hostAndPort.index(after: colon)...]
        guard !port.isEmpty else { return }
        var value = 0
        for byte in port {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { value = 0; break }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            if value > 65_535 { break }
        }
        guard (1...65_535).contains(value) else {
            throw invalid(shown, .invalidPort(String(decoding: port, as: UTF8.self)))
        }
    }

    /// Appends encoded parameters to the URL's query, before any fragment, leaving every byte of
    /// the existing URL as it was.
    static func appending(_ query: [NetworkQuery], to url: URL) throws -> URL {
        guard !query.isEmpty else { return url }
        let string = url.absoluteString
        let fragmentStart = string.firstIndex(of: "#") ?? string.endIndex
        var base = String(string[..<fragmentStart])
        let encoded = query.map(\.percentEncoded).joined(separator: "&")
        if let queryStart = base.firstIndex(of: "?") {
            let existing = base[base.index(after: queryStart)...]
            base += (existing.isEmpty || existing.hasSuffix("&")) ? encoded : "&" + encoded
        } else {
            base += "?" + encoded
        }
        guard let result = URL(string: base + string[fragmentStart...]) else {
            throw invalid(string, .malformed)
        }
        return result
    }

    /// Where the authority (`user:password@host:port`) lies: between `scheme://` and the next `/`,
    /// `?` or `#`, if the string has one.
    static func authorityRange(in string: String) -> Range<String.Index>? {
        let bytes = string.utf8
        var index = bytes.startIndex
        var start: String.Index?
        while index < bytes.endIndex {
            defer { index = bytes.index(after: index) }
            guard bytes[index] == UInt8(ascii: ":") else { continue }
            let rest = bytes[bytes.index(after: index)...]
            if rest.starts(with: "//".utf8) {
                start = bytes.index(index, offsetBy: 3)
                break
            }
        }
        guard let start else { return nil }
        let delimiters: [UInt8] = [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")]
        let end = bytes[start...].firstIndex(where: delimiters.contains) ?? bytes.endIndex
        return start..<end
    }

    private static func invalid(_ string: String, _ reason: NetworkError.InvalidURLReason) -> NetworkError {
        .request(.invalidURL(string, reason: reason))
    }
}

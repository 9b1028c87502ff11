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
        let shown = original ?? url.absoluteString
        guard let scheme = url.scheme, !scheme.isEmpty else { throw invalid(shown, .missingScheme) }
        guard supportedSchemes.contains(scheme.lowercased()) else {
            throw invalid(shown, .unsupportedScheme(scheme))
        }
        try validatePort(in: url.absoluteString, shown: shown)
        guard let host = url.host, !host.isEmpty else { throw invalid(shown, .missingHost) }
    }

    /// The port, if the URL names one, must be 1–65535. Read from the text, because Foundation
    /// keeps 99999 (which AsyncHTTPClient's NIO traps on, and which wraps to 34463 elsewhere) and
    /// silently drops a port too long for an `Int`. An empty port (`host:/`) means the default.
    private static func validatePort(in string: String, shown: String) throws {
        guard let authorityRange = authorityRange(in: string) else { return }
        var hostAndPort = string[authorityRange]
        if let userInfoEnd = hostAndPort.lastIndex(of: "@") { hostAndPort = hostAndPort[hostAndPort.index(after: userInfoEnd)...] }
        if let literalEnd = hostAndPort.lastIndex(of: "]") { hostAndPort = hostAndPort[hostAndPort.index(after: literalEnd)...] }
        guard let colon = hostAndPort.lastIndex(of: ":") else { return }
        let port = hostAndPort[hostAndPort.index(after: colon)...]
        guard !port.isEmpty else { return }
        guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(port), (1...65_535).contains(value) else {
            throw invalid(shown, .invalidPort(String(port)))
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
        guard let separator = string.firstRange(of: "://") else { return nil }
        let rest = string[separator.upperBound...]
        let end = rest.firstIndex(where: { (character: Character) in "/?#".contains(character) }) ?? rest.endIndex
        return separator.upperBound..<end
    }

    private static func invalid(_ string: String, _ reason: NetworkError.InvalidURLReason) -> NetworkError {
        .request(.invalidURL(string, reason: reason))
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The status line and headers of a response, with the URL it finally came from (after
/// redirects). Net's counterpart of `HTTPURLResponse`, as a value.
public struct NetworkResponseHead: Sendable, Hashable, CustomStringConvertible {
    /// The status code.
    public var statusCode: HTTPCode
    /// The header fields, in the order received.
    public var headers: NetworkHeaders
    /// The URL of the final response, after any redirects.
    public var url: URL
    /// Whether the response came from the network or the session's cache.
    public var cacheStatus: NetworkCacheStatus = .network

    /// Creates a response head.
    public init(statusCode: HTTPCode, headers: NetworkHeaders = NetworkHeaders(), url: URL) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
    }

    /// The first value of a header field, ignoring case (`HTTPURLResponse`'s spelling).
    public func value(forHTTPHeaderField name: String) -> String? { headers[name] }

    /// The media type of `Content-Type` without parameters, lowercased: `application/json`.
    public var mimeType: String? {
        headers["Content-Type"].flatMap(MediaType.essence)
    }

    /// Whether the body has a content coding (gzip, br…) other than `identity`: its
    /// `Content-Length` then counts encoded bytes, not the bytes a reader receives once decoded.
    package var hasContentCoding: Bool {
        let coding = headers["Content-Encoding"].map(NetworkHeader.trimmingOptionalWhitespace)?.lowercased() ?? ""
        return !coding.isEmpty && coding != "identity"
    }

    /// Whether this response, answering `method`, is framed without a body whatever its header
    /// fields say: an answer to HEAD, a 1xx, 204 or 304 (RFC 9112 §6.3). Both transports' parsers
    /// read any other response's body by its framing, a 205's included.
    package func isFramedWithoutBody(answering method: NetworkHttpMethod) -> Bool {
        method == .head || (100..<200).contains(statusCode.rawValue) || statusCode == 204 || statusCode == 304
    }

    /// Whether this response, answering `method`, has no body to use: those framed without one,
    /// and a 205, which may carry no content (RFC 9110 §15.3.6). What decoding, downloads and the
    /// content-coding check read.
    package func hasNoBody(answering method: NetworkHttpMethod) -> Bool {
        isFramedWithoutBody(answering: method) || statusCode == 205
    }

    /// `Content-Length` as a number, or `nil` when absent or not a valid length.
    public var expectedContentLength: Int64? {
        headers["Content-Length"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// `200 OK https://…`, with credentials in the URL redacted.
    public var description: String { "\(statusCode) \(NetworkRedaction.redactedURL(url))" }
}

extension NetworkResponseHead: CustomReflectable {
    /// Shows the URL redacted, so `dump(response)` cannot leak a credential from the query.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "statusCode": statusCode, "headers": headers, "url": NetworkRedaction.redactedURL(url),
            "cacheStatus": cacheStatus,
        ], displayStyle: .struct)
    }
}

/// Media-type matching for `Content-Type` checks (RFC 9110 §8.3.1).
enum MediaType {
    /// `type/subtype`, lowercased, without parameters; `nil` if it is not of that shape.
    static func essence(_ contentType: String) -> String? {
        let essence = NetworkHeader.trimmingOptionalWhitespace(String(contentType.prefix { $0 != ";" }))
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return NetworkHeaders.lowercased(essence)
    }

    /// Whether `essence` matches a pattern such as `application/json`, `text/*` or `*/*`.
    static func matches(_ essence: String, pattern: String) -> Bool {
        guard let pattern = MediaType.essence(pattern) else { return false }
        if pattern == "*/*" { return true }
        if pattern.hasSuffix("/*") { return essence.hasPrefix(pattern.dropLast()) }
        return essence == pattern
    }
}

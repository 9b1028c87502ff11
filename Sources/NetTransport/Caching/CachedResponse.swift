import Foundation
import NetCore

/// A stored response: what the server sent, when, and the request header values its `Vary`
/// names (so a later request matches only the variant it would get).
public struct CachedResponse: Sendable, Hashable, Codable {
    /// The request method it answered (`GET` or `HEAD`).
    public var method: String
    /// The status code.
    public var statusCode: Int
    /// The header fields as `[name, value]` pairs, in order.
    public var headerFields: [[String]]
    /// The final URL (after redirects).
    public var url: URL
    /// The body (empty for HEAD).
    public var body: Data
    /// When the request that fetched (or last revalidated) it was sent.
    public var requestTime: Date
    /// When its response arrived.
    public var responseTime: Date
    /// For each header named by `Vary` (lower-cased), the request's value, or `nil` when absent.
    public var varyValues: [String: String?]

    /// The headers as Net's type; fields that no longer validate are dropped.
    var headers: NetworkHeaders {
        var headers = NetworkHeaders()
        for field in headerFields where field.count == 2 {
            try? headers.add(name: field[0], value: field[1])
        }
        return headers
    }

    /// The directives of its `Cache-Control` fields.
    var cacheControl: CacheControl { CacheControl(fields: headers.values(for: "Cache-Control")) }

    /// Its freshness and age.
    var freshness: CacheFreshness {
        CacheFreshness(headers: headers, cacheControl: cacheControl, requestTime: requestTime, responseTime: responseTime)
    }

    /// Roughly the memory it takes: the body and the header text.
    var byteCount: Int {
        body.count + headerFields.reduce(0) { $0 + $1.reduce(0) { $0 + $1.utf8.count } } + url.absoluteString.utf8.count
    }

    /// Whether the request's values for the `Vary` headers are the stored ones.
    func matches(_ request: NetworkRequest) -> Bool {
        varyValues.allSatisfy { name, value in Self.varyValue(of: name, in: request.headers) == value }
    }

    /// A request's value for a `Vary` header: its fields joined, or `nil` when absent.
    static func varyValue(of name: String, in headers: NetworkHeaders) -> String? {
        let values = headers.values(for: name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}

import Foundation
import NetCore

/// A stored response: what the server sent, when, and the request header values its `Vary`
/// names and the credentials that fetched it (so a later request matches only the variant it
/// would get, and only its own user's).
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
    /// For each header named by `Vary` (lower-cased), and each credential header the request
    /// carried (``HTTPCache/separatesCredentials``), the request's value, or `nil` when absent. A
    /// credential's value is kept as its SHA-256 digest, never as it was sent.
    public var varyValues: [String: String?]
    /// How long it is fresh after it was generated, worked out from its headers when stored.
    public var lifetime: Duration = .zero
    /// Its age on arrival (RFC 9111 §4.2.3's corrected initial age), worked out when stored.
    public var initialAge: Duration = .zero

    /// The headers as Net's type; fields that no longer validate are dropped.
    var headers: NetworkHeaders {
        var headers = NetworkHeaders()
        for field in headerFields where field.count == 2 {
            try? headers.add(name: field[0], value: field[1])
        }
        return headers
    }

    /// The values of the stored fields named `name` (any case), read without rebuilding
    /// ``headers``, which validates every field: this runs on every cache hit.
    func values(of name: String) -> [String] {
        headerFields.compactMap { $0.count == 2 && $0[0].caseInsensitiveCompare(name) == .orderedSame ? $0[1] : nil }
    }

    /// The directives of its `Cache-Control` fields.
    var cacheControl: CacheControl { CacheControl(fields: values(of: "Cache-Control")) }

    /// Whether it carries a validator (`ETag` or `Last-Modified`) to revalidate it with.
    var hasValidator: Bool { !values(of: "ETag").isEmpty || !values(of: "Last-Modified").isEmpty }

    /// Its freshness and age, from the values worked out when it was stored (a hit parses no dates).
    var freshness: CacheFreshness {
        CacheFreshness(lifetime: lifetime, initialAge: initialAge, responseTime: responseTime)
    }

    /// A copy with ``lifetime`` and ``initialAge`` worked out from its headers and times.
    func withFreshnessComputed() -> CachedResponse {
        let computed = CacheFreshness(headers: headers, cacheControl: cacheControl, requestTime: requestTime, responseTime: responseTime)
        var copy = self
        copy.lifetime = computed.lifetime
        copy.initialAge = computed.initialAge
        return copy
    }

    /// Roughly the memory it takes: the body, the text of its header fields and of the request's
    /// values for its `Vary` headers (a `Vary: Accept-Language` keeps the whole field; a
    /// credential, only its digest), and what
    /// holding each of them costs: a field is an array of two strings, about 64 bytes of heap
    /// before its text, so that 16,000 tiny fields are not counted as a few kilobytes.
    var byteCount: Int {
        let perField = 64
        let fields = headerFields.reduce(0) { $0 + perField + $1.reduce(0) { $0 + $1.utf8.count } }
        let varied = varyValues.reduce(0) { $0 + perField + $1.key.utf8.count + ($1.value?.utf8.count ?? 0) }
        return body.count + fields + varied + url.absoluteString.utf8.count
    }

    /// Whether the request's values for the `Vary` headers are the stored ones; and, when
    /// `separatingCredentials`, whether every credential the request carries is one this response
    /// was fetched with (a response fetched without credentials is not another user's answer:
    /// the server may answer them differently), unless the server said it may be shared
    /// (``CacheControl/allowsSharing``). `request` reads each value once for all the variants.
    func matches(_ request: inout RequestVaryValues, separatingCredentials: Bool) -> Bool {
        for (name, value) in varyValues where request.value(of: name) != value { return false }
        guard separatingCredentials, request.carriesCredentials() else { return true }
        for field in request.headers where request.isSecretHeader(field.name) {
            // Keys are lower-cased; compared as header names are (ASCII case only), without a
            // lower-cased copy of the field's name.
            guard varyValues.keys.contains(where: { NetworkHeaders.sameName($0, field.name) }) else {
                return cacheControl.allowsSharing
            }
        }
        return true
    }

    /// A request's value for a `Vary` header: its fields joined, or `nil` when absent; a
    /// credential's (``NetworkRequest/isSecretHeader(_:)``) as the hex of its SHA-256, so that no
    /// stored entry holds one.
    static func varyValue(of name: String, in request: NetworkRequest) -> String? {
        let values = request.headers.values(for: name)
        guard !values.isEmpty else { return nil }
        let joined = values.joined(separator: ", ")
        guard request.isSecretHeader(name) else { return joined }
        return "sha256:" + SHA256.hash(Array(joined.utf8)).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

/// A request's values for `Vary`ed headers, each worked out once however many stored variants
/// are compared with it: a credential's is a SHA-256.
struct RequestVaryValues {
    let request: NetworkRequest
    private var known: [String: String?] = [:]
    private var credentials: Bool?

    init(_ request: NetworkRequest) {
        self.request = request
    }

    var headers: NetworkHeaders { request.headers }

    /// See ``NetworkRequest/isSecretHeader(_:)``.
    func isSecretHeader(_ name: String) -> Bool { request.isSecretHeader(name) }

    /// Whether the request carries a credential (``NetworkRequest/isSecretHeader(_:)``): scanned
    /// once, and only when a cache that keeps answers apart asks (not on every lookup).
    mutating func carriesCredentials() -> Bool {
        if let credentials { return credentials }
        let request = request
        let found = request.headers.contains { request.isSecretHeader($0.name) }
        credentials = found
        return found
    }

    /// The value of header `name` (lower-cased), as ``CachedResponse/varyValue(of:in:)`` gives it.
    mutating func value(of name: String) -> String? {
        if let value = known[name] { return value }
        let value = CachedResponse.varyValue(of: name, in: request)
        known[name] = .some(value)
        return value
    }
}

private extension String {
    /// `self` with zeros before it up to `width` characters.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

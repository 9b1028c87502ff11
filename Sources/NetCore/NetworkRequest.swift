#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP request as a value: URL, method, headers, body and timeout.
///
/// The initialisers are ALTENNetwork's, and they throw a typed ``NetworkError`` for anything that
/// could not be sent as given: a relative or malformed URL, an unsupported scheme, an invalid
/// method token, a header that would inject another. Query parameters are encoded so that each
/// key and value reaches the server exactly as written.
///
/// ```swift
/// let request = try NetworkRequest(url: "https://www.omdbapi.com/", query: [
///     .query(key: "s", value: "Star Wars"),
///     .query(key: "page", value: "2"),
/// ])
/// ```
///
/// The properties are mutable so interceptors can adjust a request; ``validate()`` re-checks the
/// rules, and transports call it before sending.
public struct NetworkRequest: Sendable, CustomStringConvertible {
    /// The absolute http(s) URL, query included.
    public var url: URL {
        didSet { urlPassedValidation = false }
    }
    /// The method.
    public var httpMethod: NetworkHttpMethod
    /// The header fields, in order; always valid to send.
    public var headers: NetworkHeaders
    /// The body.
    public var body: NetworkRequestBody
    /// How long the whole exchange may take, or `nil` for the session's default.
    public var timeout: Duration?
    /// How the request may use the session's cache, if it has one; the protocol's rules by default.
    public var cachePolicy: NetworkCachePolicy = .useProtocolCachePolicy
    /// Query keys (any case) whose values are credentials, on top of
    /// ``NetworkRedaction/sensitiveQueryKeys``: redacted in ``description``, errors, logs and curl
    /// commands. Filled from ``NetworkQuery/secret(key:value:)`` parameters; add your own.
    public var secretQueryKeys: Set<String> = []
    /// Which refresh generation of an `AuthenticationInterceptor`'s credential signed this request,
    /// so a 401 can tell a request of the burst a failed refresh answered from a later one.
    package var credentialGeneration: Int?
    /// The session reads this request's response whole into memory (`requestData`): only such
    /// a call may share an exchange with identical ones (`SharedRequestsTransport`).
    package var collectsBodyInMemory = false
    /// Whether ``url`` met ``validate()``'s rules when it was set: checking a URL reads its text,
    /// and the initialisers and every transport validate each request.
    private var urlPassedValidation = false

    /// Creates a request with any kind of body.
    ///
    /// - Parameters:
    ///   - url: an absolute http or https URL.
    ///   - httpMethod: the method; `.get` by default.
    ///   - headers: header fields, sent in order (except by `URLSessionTransport`, whose
    ///     FoundationNetworking keeps distinct names in a dictionary); repeated names are kept.
    ///   - query: parameters appended to the URL's query, after any already there.
    ///   - body: what to send; see ``NetworkRequestBody``.
    ///   - timeout: a positive limit for the whole exchange, or `nil` for the session's default.
    public init(
        url: URL,
        httpMethod: NetworkHttpMethod = .get,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        body: NetworkRequestBody,
        timeout: Duration? = nil
    ) throws {
        self.url = try URLValidation.appending(query ?? [], to: url)
        self.secretQueryKeys = Self.secretKeys(in: query ?? [])
        self.httpMethod = httpMethod
        self.headers = try NetworkHeaders(headers ?? [])
        self.body = body
        self.timeout = timeout
        try validate()
        urlPassedValidation = true
    }

    /// Creates a request from a URL string, like the `URL` variant.
    public init(
        url: String,
        httpMethod: NetworkHttpMethod = .get,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        body: NetworkRequestBody,
        timeout: Duration? = nil
    ) throws {
        try self.init(
            url: URLValidation.parse(url), httpMethod: httpMethod, headers: headers, query: query,
            body: body, timeout: timeout)
    }

    /// Creates a request with an optional in-memory body (ALTENNetwork's initialiser).
    public init(
        url: URL,
        httpMethod: NetworkHttpMethod = .get,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        httpBody: Data? = nil,
        timeout: Duration? = nil
    ) throws {
        try self.init(
            url: url, httpMethod: httpMethod, headers: headers, query: query,
            body: httpBody.map(NetworkRequestBody.data) ?? .none, timeout: timeout)
    }

    /// Creates a request from a URL string with an optional in-memory body (ALTENNetwork's
    /// initialiser). Non-ASCII characters in the path are percent-encoded; escapes already in the
    /// string are kept byte for byte.
    public init(
        url: String,
        httpMethod: NetworkHttpMethod = .get,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        httpBody: Data? = nil,
        timeout: Duration? = nil
    ) throws {
        try self.init(
            url: URLValidation.parse(url), httpMethod: httpMethod, headers: headers, query: query,
            httpBody: httpBody, timeout: timeout)
    }

    /// The in-memory body, if any (ALTENNetwork's name).
    public var httpBody: Data? { body.data }

    /// Checks every rule a request must meet to be sent: an absolute http(s) URL with a host, a
    /// valid method token and a positive timeout. Headers are valid by construction.
    public func validate() throws {
        if !urlPassedValidation { try URLValidation.validate(url) }
        try httpMethod.validate()
        if let timeout, timeout <= .zero {
            throw NetworkError.request(.invalidTimeout(timeout))
        }
    }

    /// Returns a copy with more query parameters appended.
    public func appendingQuery(_ query: [NetworkQuery]) throws -> NetworkRequest {
        var copy = self
        copy.url = try URLValidation.appending(query, to: url)
        copy.secretQueryKeys.formUnion(Self.secretKeys(in: query))
        return copy
    }

    /// The URL with its password and secret query values replaced by `REDACTED`: what to show.
    public var redactedURL: String {
        NetworkRedaction.redactedURL(url, secretQueryKeys: secretQueryKeys)
    }

    /// `METHOD URL`, with secrets redacted.
    public var description: String { "\(httpMethod) \(redactedURL)" }

    private static func secretKeys(in query: [NetworkQuery]) -> Set<String> {
        Set(query.lazy.filter(\.isSecret).map { $0.key.lowercased() })
    }
}

extension NetworkRequest: CustomReflectable {
    /// Shows the redacted URL and headers, so `dump(request)` cannot leak a credential.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "url": redactedURL, "httpMethod": httpMethod, "headers": headers, "body": body,
            "timeout": timeout as Any, "cachePolicy": cachePolicy,
        ], displayStyle: .struct)
    }
}

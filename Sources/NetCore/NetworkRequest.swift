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
    /// Every field, in one copy-on-write box: a request passes through every stage of the
    /// pipeline and is copied into each response, error and metrics value, and copying a box is
    /// one reference count where copying the fields was one per field.
    private var storage: NetworkRequestStorage

    /// The absolute http(s) URL, query included.
    public var url: URL {
        get { storage.url }
        set {
            uniqueStorage().url = newValue
            storage.urlPassedValidation = false
        }
    }
    /// The method.
    public var httpMethod: NetworkHttpMethod {
        get { storage.httpMethod }
        set { uniqueStorage().httpMethod = newValue }
    }
    /// The header fields, in order; always valid to send.
    public var headers: NetworkHeaders {
        get { storage.headers }
        _modify { yield &uniqueStorage().headers }
    }
    /// The body.
    public var body: NetworkRequestBody {
        get { storage.body }
        set { uniqueStorage().body = newValue }
    }
    /// This request with no body: what a record kept past the call needs (a log line, a span),
    /// without holding the body's memory.
    package var withoutBody: NetworkRequest {
        guard case .none = body else {
            var stripped = self
            stripped.body = .none
            return stripped
        }
        return self
    }
    /// How long the whole exchange may take, or `nil` for the session's default.
    public var timeout: Duration? {
        get { storage.timeout }
        set { uniqueStorage().timeout = newValue }
    }
    /// How the request may use the session's cache, if it has one; the protocol's rules by default.
    public var cachePolicy: NetworkCachePolicy {
        get { storage.cachePolicy }
        set { uniqueStorage().cachePolicy = newValue }
    }
    /// Query keys (any case) whose values are credentials, on top of
    /// ``NetworkRedaction/sensitiveQueryKeys``: redacted in ``description``, errors, logs and curl
    /// commands. Filled from ``NetworkQuery/secret(key:value:)`` parameters; add your own.
    public var secretQueryKeys: Set<String> {
        get { storage.secretQueryKeys }
        _modify { yield &uniqueStorage().secretQueryKeys }
    }
    /// Header names (any case) whose values are credentials, on top of
    /// ``NetworkRedaction/sensitiveHeaderNames``: like those, dropped when a redirect leaves the
    /// origin, kept apart per value by the HTTP cache, and redacted in curl commands and HAR
    /// archives. An `AuthenticationInterceptor` adds the name it signs with; add your own
    /// (`PRIVATE-TOKEN`, `X-Vault-Token`).
    public var secretHeaderNames: Set<String> {
        get { storage.secretHeaderNames }
        _modify { yield &uniqueStorage().secretHeaderNames }
    }
    /// Whether header `name`'s value is a credential: a name Net knows as one, or one of
    /// ``secretHeaderNames``.
    public func isSecretHeader(_ name: String) -> Bool {
        NetworkRedaction.isSensitiveHeader(name) || NetworkRedaction.isMarkedHeader(name, in: storage.secretHeaderNames)
    }
    /// Which refresh generation of an `AuthenticationInterceptor`'s credential signed this request,
    /// so a 401 can tell a request of the burst a failed refresh answered from a later one.
    package var credentialGeneration: Int? {
        get { storage.credentialGeneration }
        set { uniqueStorage().credentialGeneration = newValue }
    }
    /// What the call will do with this request's response body: a transport may hand it over in
    /// the way that suits (``ResponseBodyUse``).
    ///
    /// Stored beside the shared storage, not in it: the session sets it on every call, and in the
    /// storage each call copied the caller's request first.
    package var responseBodyUse = ResponseBodyUse.streamed

    /// The session reads this request's response whole into memory (`requestData`): only such
    /// a call may share an exchange with identical ones (`SharedRequestsTransport`).
    package var collectsBodyInMemory: Bool { responseBodyUse == .inMemory }

    /// The box, copied first if another request shares it.
    private mutating func uniqueStorage() -> NetworkRequestStorage {
        if !isKnownUniquelyReferenced(&storage) { storage = NetworkRequestStorage(copying: storage) }
        return storage
    }

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
        storage = NetworkRequestStorage(
            url: try URLValidation.appending(query ?? [], to: url), httpMethod: httpMethod,
            headers: try NetworkHeaders(headers ?? []), body: body, timeout: timeout,
            secretQueryKeys: Self.secretKeys(in: query ?? []))
        try validate()
        storage.urlPassedValidation = true  // unique: just made
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
        if !storage.urlPassedValidation { try URLValidation.validate(url) }
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
    /// Shows the redacted URL and headers (those of ``secretHeaderNames`` included), so
    /// `dump(request)` cannot leak a credential.
    public var customMirror: Mirror {
        let shownHeaders = headers.map { field in
            isSecretHeader(field.name) ? "\(field.name): \(NetworkRedaction.redactedCredential(field.value))" : "\(field)"
        }
        return Mirror(self, children: [
            "url": redactedURL, "httpMethod": httpMethod, "headers": shownHeaders, "body": body,
            "timeout": timeout as Any, "cachePolicy": cachePolicy,
        ], displayStyle: .struct)
    }
}

#if OpenAPI  // the package trait: without it this file compiles to nothing
import Foundation
import HTTPTypes
import NetCore

extension NetworkHeaders {
    /// Net's header fields from swift-http-types' fields: in order, repeated names kept, names as
    /// they were spelled. Repeated `Cookie` fields are one value in swift-http-types (its pieces
    /// joined with `; `, RFC 6265 §5.4), and become one field at the first one's place.
    ///
    /// - Throws: ``NetworkError/RequestFailure/invalidHeader(name:reason:)`` for a value Net does
    ///   not send: a control character other than tab (which `HTTPField(name:lenientValue:)` can
    ///   hold), or bytes that are not UTF-8 (obs-text, which Net's `String` values cannot carry
    ///   unchanged: ``NetworkError/InvalidHeaderReason/forbiddenValueCharacter(_:)`` names U+FFFD).
    public init(_ fields: HTTPFields) throws {
        self.init()
        var cookies: [String] = []
        var cookieName: String?
        for field in fields {
            // `HTTPFields` holds token names only (it refuses pseudo-header fields), so a field
            // whose value is valid (checked on bytes, as Net checks) holds only what Net sends.
            // Lenient values go through Net's own check, which names the fault.
            let name = field.name.rawName
            let isUTF8 = field.withUnsafeBytesOfValue { String(validating: $0, as: UTF8.self) != nil }
            guard isUTF8 else { throw NetworkError.request(.invalidHeader(name: name, reason: .forbiddenValueCharacter("\u{FFFD}"))) }
            if field.name == .cookie {
                if cookieName == nil {
                    cookieName = name
                    appendPrevalidated(name: name, value: "")  // its place; the value is set below
                }
                cookies.append(field.value)
                continue
            }
            if HTTPField.isValidValue(field.value) {
                appendPrevalidated(name: name, value: field.value)
            } else {
                try add(name: name, value: field.value)
            }
        }
        if let cookieName { try set(name: cookieName, value: cookies.joined(separator: "; ")) }
    }
}

extension HTTPFields {
    /// swift-http-types' fields from Net's: in order, repeated names kept, names as spelled.
    ///
    /// Net's names are tokens, so none is a pseudo-header field (`:authority` and kin live in
    /// `HTTPRequest` itself, never in `HTTPFields`). Spaces and tabs around a value are left out,
    /// as RFC 9110 §5.5 says they are not part of it (swift-http-types refuses them).
    ///
    /// - Throws: ``NetworkError/RequestFailure/invalidHeader(name:reason:)`` for a field
    ///   swift-http-types does not accept, rather than its lenient rewrite (Net's own rules
    ///   already keep such values out of ``NetworkHeaders``).
    public init(_ headers: NetworkHeaders) throws {
        self.init()
        for header in headers {
            guard let name = HTTPField.Name(header.name) else {
                throw NetworkError.request(.invalidHeader(name: header.name, reason: .reservedName))
            }
            let value = NetworkHeader.trimmingOptionalWhitespace(header.value)
            guard HTTPField.isValidValue(value) else {
                let scalar = value.unicodeScalars.first { NetworkHeader.isForbiddenInValue($0) } ?? "\u{0}"
                throw NetworkError.request(.invalidHeader(name: header.name, reason: .forbiddenValueCharacter(scalar)))
            }
            append(HTTPField(name: name, value: value))
        }
    }
}

extension NetworkRequest {
    /// A request from swift-http-types' request: its method, its header fields in order, and its
    /// URL: `scheme://authority` and the path with its query exactly as given, or, when the
    /// request has no authority (as a generated client's), `baseURL` followed by that path.
    ///
    /// - Throws: ``NetworkError/RequestFailure/invalidURL(_:reason:)`` when the result is not an
    ///   absolute http or https URL, when the target is not a path (`*`, or none as for
    ///   `CONNECT`), and when `baseURL` has a query or a fragment (the path would follow it);
    ///   and the header errors of ``NetworkHeaders/init(_:)``.
    public init(_ request: HTTPRequest, body: NetworkRequestBody = .none, baseURL: URL? = nil) throws {
        // An origin-form target (`/path?query`), or none: `*` (OPTIONS) and an authority-form
        // target (CONNECT) are not requests Net sends, and a path without its `/` would run into
        // the authority (`example.comitems`).
        guard let path = request.path, path.isEmpty || path.hasPrefix("/") else {
            throw NetworkError.request(.invalidURL(request.path ?? "", reason: .malformed))
        }
        let text: String
        if let authority = request.authority, !authority.isEmpty {
            text = "\(request.scheme ?? "https")://\(authority)\(path)"
        } else if let baseURL {
            // The path is appended to the base URL's own: a query or fragment there would end up
            // before it, and the request would go to the base URL's path.
            guard baseURL.query == nil, baseURL.fragment == nil else {
                throw NetworkError.request(.invalidURL(NetworkRedaction.redactedURL(baseURL), reason: .malformed))
            }
            var base = baseURL.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            text = base + path
        } else {
            throw NetworkError.request(.invalidURL(path, reason: .missingHost))
        }
        guard let url = URL(string: text) else { throw NetworkError.request(.invalidURL(text, reason: .malformed)) }
        try self.init(url: url, httpMethod: NetworkHttpMethod(validating: request.method.rawValue), body: body)
        headers = try NetworkHeaders(request.headerFields)
    }
}

extension HTTPRequest {
    /// swift-http-types' request from Net's: method, scheme, authority (`host[:port]`, the port
    /// only when given), the percent-encoded path and query as sent, and the header fields in
    /// order. The body is not part of an `HTTPRequest`.
    public init(_ request: NetworkRequest) throws {
        guard let method = HTTPRequest.Method(request.httpMethod.rawValue) else {
            throw NetworkError.request(.invalidMethod(request.httpMethod.rawValue))
        }
        let url = request.url
        let host = url.host(percentEncoded: true) ?? ""
        var authority = host.contains(":") ? "[\(host)]" : host
        if let port = url.port { authority += ":\(port)" }
        let path = url.path(percentEncoded: true)
        let query = url.query(percentEncoded: true).map { "?\($0)" } ?? ""
        self.init(method: method, scheme: url.scheme, authority: authority, path: (path.isEmpty ? "/" : path) + query,
                  headerFields: try HTTPFields(request.headers))
    }
}

extension HTTPResponse {
    /// swift-http-types' response head from Net's: the status and the header fields in order.
    ///
    /// - Throws: ``NetworkError/TransportFailure/other(_:)`` for a status outside 0–999, which
    ///   `HTTPResponse.Status` cannot hold, and the header errors of `HTTPFields.init(_:)`.
    public init(_ head: NetworkResponseHead) throws {
        let code = head.statusCode.rawValue
        guard (0...999).contains(code) else {
            throw NetworkError.transport(.other("status \(code) is outside 0–999"))
        }
        self.init(status: .init(code: code), headerFields: try HTTPFields(head.headers))
    }
}

extension NetworkResponseHead {
    /// Net's response head from swift-http-types' response, for the response to a request for
    /// `url`.
    public init(_ response: HTTPResponse, url: URL) throws {
        self.init(statusCode: HTTPCode(response.status.code), headers: try NetworkHeaders(response.headerFields), url: url)
    }
}
#endif

/// An HTTP status code such as `200` or `404`.
///
/// `HTTPCode` is a real type rather than an `Int` alias so that it can carry its class and reason
/// phrase, yet it reads like a number: `response.statusCode == 401` and
/// `400..<500 ~= response.statusCode` both compile.
public struct HTTPCode: RawRepresentable, Sendable, Hashable, Comparable, Codable,
    ExpressibleByIntegerLiteral, CustomStringConvertible
{
    /// The class of a status code, given by its first digit (RFC 9110 §15).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// 1xx: the request was received and is being processed.
        case informational
        /// 2xx: the request succeeded.
        case success
        /// 3xx: further action is needed, usually a redirect.
        case redirection
        /// 4xx: the request was wrong.
        case clientError
        /// 5xx: the server failed.
        case serverError
    }

    /// The numeric code.
    public let rawValue: Int

    /// Wraps any integer; codes outside 100...599 have no `kind`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Wraps any integer; codes outside 100...599 have no `kind`.
    public init(_ rawValue: Int) { self.rawValue = rawValue }

    /// Allows `let code: HTTPCode = 404`.
    public init(integerLiteral value: Int) { self.rawValue = value }

    /// Decodes a bare JSON number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int.self)
    }

    /// Encodes a bare JSON number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The class of the code, or `nil` when it lies outside 100...599.
    public var kind: Kind? {
        switch rawValue {
        case 100..<200: .informational
        case 200..<300: .success
        case 300..<400: .redirection
        case 400..<500: .clientError
        case 500..<600: .serverError
        default: nil
        }
    }

    /// `true` for 2xx codes.
    public var isSuccess: Bool { kind == .success }

    /// The standard reason phrase, such as "Not Found", or an empty string for unregistered codes.
    public var reasonPhrase: String { HTTPCode.reasonPhrases[rawValue] ?? "" }

    /// The code followed by its reason phrase, such as "404 Not Found".
    public var description: String {
        let phrase = reasonPhrase
        return phrase.isEmpty ? String(rawValue) : "\(rawValue) \(phrase)"
    }

    /// Orders codes numerically, which is what makes `400..<500 ~= code` work.
    public static func < (lhs: HTTPCode, rhs: HTTPCode) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Compares a code with a plain integer, as code written for `HTTPURLResponse.statusCode` does.
    public static func == (lhs: HTTPCode, rhs: Int) -> Bool { lhs.rawValue == rhs }

    /// Compares a plain integer with a code.
    public static func == (lhs: Int, rhs: HTTPCode) -> Bool { lhs == rhs.rawValue }
}

extension HTTPCode {
    /// 200 OK.
    public static let ok: HTTPCode = 200
    /// 201 Created.
    public static let created: HTTPCode = 201
    /// 202 Accepted.
    public static let accepted: HTTPCode = 202
    /// 204 No Content.
    public static let noContent: HTTPCode = 204
    /// 205 Reset Content.
    public static let resetContent: HTTPCode = 205
    /// 206 Partial Content.
    public static let partialContent: HTTPCode = 206
    /// 301 Moved Permanently.
    public static let movedPermanently: HTTPCode = 301
    /// 302 Found.
    public static let found: HTTPCode = 302
    /// 303 See Other.
    public static let seeOther: HTTPCode = 303
    /// 304 Not Modified.
    public static let notModified: HTTPCode = 304
    /// 307 Temporary Redirect.
    public static let temporaryRedirect: HTTPCode = 307
    /// 308 Permanent Redirect.
    public static let permanentRedirect: HTTPCode = 308
    /// 400 Bad Request.
    public static let badRequest: HTTPCode = 400
    /// 401 Unauthorized.
    public static let unauthorized: HTTPCode = 401
    /// 403 Forbidden.
    public static let forbidden: HTTPCode = 403
    /// 404 Not Found.
    public static let notFound: HTTPCode = 404
    /// 408 Request Timeout.
    public static let requestTimeout: HTTPCode = 408
    /// 409 Conflict.
    public static let conflict: HTTPCode = 409
    /// 422 Unprocessable Content.
    public static let unprocessableContent: HTTPCode = 422
    /// 429 Too Many Requests.
    public static let tooManyRequests: HTTPCode = 429
    /// 500 Internal Server Error.
    public static let internalServerError: HTTPCode = 500
    /// 502 Bad Gateway.
    public static let badGateway: HTTPCode = 502
    /// 503 Service Unavailable.
    public static let serviceUnavailable: HTTPCode = 503
    /// 504 Gateway Timeout.
    public static let gatewayTimeout: HTTPCode = 504

    static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 103: "Early Hints",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information",
        204: "No Content", 205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other",
        304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden",
        404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
        407: "Proxy Authentication Required", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
        411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content",
        425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required",
        429: "Too Many Requests", 431: "Request Header Fields Too Large",
        451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
        511: "Network Authentication Required",
    ]
}

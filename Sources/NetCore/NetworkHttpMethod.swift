/// An HTTP request method.
///
/// The common methods are cases; anything else is `.other("PROPFIND")`. Methods are
/// case-sensitive tokens (RFC 9110 §9.1), so `.other("GET")` equals `.get` but `.other("get")`
/// does not. A token that is empty or contains a space, CR, LF or any other non-token character
/// is rejected with ``NetworkError/RequestFailure/invalidMethod(_:)`` when the request is built
/// or validated, never sent malformed.
public enum NetworkHttpMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// GET
    case get
    /// HEAD
    case head
    /// POST
    case post
    /// PUT
    case put
    /// DELETE
    case delete
    /// TRACE
    case trace
    /// OPTIONS
    case options
    /// CONNECT
    case connect
    /// PATCH
    case patch
    /// MOVE (WebDAV)
    case move
    /// Any other method token, such as `PROPFIND`.
    case other(String)

    private static let known: [NetworkHttpMethod] = [
        .get, .head, .post, .put, .delete, .trace, .options, .connect, .patch, .move,
    ]

    /// Parses a method token; returns `nil` when it is not a valid token.
    public init?(rawValue: String) {
        guard HTTPToken.isValid(rawValue) else { return nil }
        self = NetworkHttpMethod.other(rawValue).named
    }

    /// Parses a method token, throwing ``NetworkError/RequestFailure/invalidMethod(_:)`` when it is
    /// not a valid token.
    public init(validating token: String) throws {
        guard let method = NetworkHttpMethod(rawValue: token) else {
            throw NetworkError.request(.invalidMethod(token))
        }
        self = method
    }

    /// The method token as sent on the wire.
    public var rawValue: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .trace: "TRACE"
        case .options: "OPTIONS"
        case .connect: "CONNECT"
        case .patch: "PATCH"
        case .move: "MOVE"
        case .other(let token): token
        }
    }

    /// Methods that do not change server state (RFC 9110 §9.2.1).
    public var isSafe: Bool {
        switch named {
        case .get, .head, .options, .trace: true
        default: false
        }
    }

    /// Methods that may be repeated with the same effect, and so retried (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        switch named {
        case .get, .head, .options, .trace, .put, .delete: true
        default: false
        }
    }

    /// The named case for a token that has one: `.other("GET")` is `.get`.
    private var named: NetworkHttpMethod {
        guard case .other(let token) = self else { return self }
        return NetworkHttpMethod.known.first { $0.rawValue == token } ?? self
    }

    /// Throws ``NetworkError/RequestFailure/invalidMethod(_:)`` if the token is not valid.
    public func validate() throws {
        // The named cases are tokens by construction; only `.other`'s text can be wrong.
        guard case .other(let token) = self else { return }
        guard HTTPToken.isValid(token) else { throw NetworkError.request(.invalidMethod(token)) }
    }

    /// The method token.
    public var description: String { rawValue }

    /// Equal when the tokens are equal, so `.other("GET") == .get`.
    public static func == (lhs: NetworkHttpMethod, rhs: NetworkHttpMethod) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    /// Hashes the token.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// RFC 9110 §5.6.2 tokens: the grammar of method and header field names.
enum HTTPToken {
    static func isValid(_ string: String) -> Bool {
        guard !string.isEmpty else { return false }
        return string.utf8.withContiguousStorageIfAvailable(isValid) ?? string.utf8.allSatisfy(isTokenByte)
    }

    /// Eight bytes at a time where they are all letters or hyphens, as header names mostly are;
    /// byte by byte elsewhere (``WordScan``).
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        WordScan.firstByte(in: UnsafeRawBufferPointer(bytes), where: { !isTokenByte($0) }, wordMayHoldOne: { !isLettersOrHyphens($0) }) == nil
    }

    /// Whether each of the eight bytes of `word` is an ASCII letter or `-`.
    @inline(__always)
    static func isLettersOrHyphens(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits = ones &* 0x80
        // Every byte below 0x80, so no sum below carries into the next byte, and each byte's
        // bit 7 answers for that byte alone.
        guard word & highBits == 0 else { return false }
        let folded = word | (ones &* 0x20)  // A–Z to a–z; other bytes move, but not into a–z
        let atLeastA = (folded &+ ones &* (0x80 - 0x61)) & highBits
        let aboveZ = (folded &+ ones &* (0x80 - 0x7B)) & highBits
        let hyphenXOR = word ^ (ones &* 0x2D)  // zero where the byte is `-`
        let notHyphen = (((hyphenXOR & ~highBits) &+ ~highBits) | hyphenXOR) & highBits
        return (atLeastA & ~aboveZ) | (notHyphen ^ highBits) == highBits
    }

    /// RFC 9110 §5.6.2's `tchar`: letters, digits and ``!#$%&'*+-.^_`|~``. Read from two 64-bit
    /// masks over ASCII, one shift and test per byte: every header name and method of every
    /// request and response passes here.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        // Bit n of `low` is byte n (0–63); bit n of `high` is byte 64 + n (64–127).
        let low: UInt64 = 0x03FF_6CFA_0000_0000  // ! # $ % & ' * + - . 0–9
        let high: UInt64 = 0x57FF_FFFF_C7FF_FFFE  // A–Z ^ _ ` a–z | ~
        if byte < 64 { return (low >> UInt64(byte)) & 1 == 1 }
        return byte < 128 && (high >> UInt64(byte - 64)) & 1 == 1
    }
}

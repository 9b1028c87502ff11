/// A type that can stand for an empty response body.
///
/// `Optional` (as `nil`) and ``NetworkEmpty`` conform; conform your own types to accept 204s.
public protocol NetworkEmptyDecodable {
    /// The value an empty body decodes to.
    static func emptyValue() -> Self
}

/// Decode this when a response has, or may have, no body you care about:
/// `try response.validate().jsonDecode(NetworkEmpty.self)`. Any JSON body is accepted and ignored.
public struct NetworkEmpty: Decodable, NetworkEmptyDecodable, Sendable, Hashable {
    /// Creates the empty value.
    public init() {}

    /// Accepts and ignores any JSON.
    public init(from decoder: any Decoder) throws {}

    /// The empty value.
    public static func emptyValue() -> NetworkEmpty { NetworkEmpty() }
}

extension Optional: NetworkEmptyDecodable {
    /// `nil`.
    public static func emptyValue() -> Wrapped? { nil }
}

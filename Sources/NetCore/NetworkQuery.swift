/// One query parameter: a key and an optional value, given unencoded.
///
/// Net percent-encodes keys and values itself, so every character arrives at the server exactly
/// as given, including `+ & = # % / ?`, spaces and non-ASCII text. Parameters keep their order;
/// repeated keys and empty values are sent as they are (`a=1&a=2`, `empty=`), and a `nil` value
/// sends the bare key (`flag`).
///
/// ```swift
/// let request = try NetworkRequest(url: "https://api.example.com/search", query: [
///     .query(key: "q", value: "C++ & Swift"),   // q=C%2B%2B%20%26%20Swift
///     .query(key: "page", value: "2"),
/// ])
/// ```
public struct NetworkQuery: Sendable, Hashable, CustomStringConvertible {
    /// The key, unencoded.
    public var key: String
    /// The value, unencoded; `nil` sends the key alone.
    public var value: String?
    /// Whether the value is a credential: a request built with it adds the key to its
    /// ``NetworkRequest/secretQueryKeys``, so logs, errors and curl commands show `REDACTED`.
    public var isSecret: Bool

    /// Creates a parameter from an unencoded key and value.
    public init(key: String, value: String?, isSecret: Bool = false) {
        self.key = key
        self.value = value
        self.isSecret = isSecret
    }

    /// A parameter whose value is a credential (a session key, a signed token): sent as given,
    /// shown as `REDACTED` in descriptions, errors, logs and redacted curl commands.
    public static func secret(key: String, value: String?) -> NetworkQuery {
        NetworkQuery(key: key, value: value, isSecret: true)
    }

    /// Creates a parameter; ALTENNetwork's spelling.
    ///
    /// - Parameter forceEncodingPlusSymbol: kept so ALTENNetwork code compiles unchanged. Net always
    ///   encodes `+` as `%2B`, because most servers decode a raw `+` in a query as a space.
    public static func query(key: String, value: String?, forceEncodingPlusSymbol: Bool = false) -> NetworkQuery {
        NetworkQuery(key: key, value: value)
    }

    /// The parameter as it appears in the URL: `key=value`, percent-encoded.
    public var percentEncoded: String {
        let encodedKey = PercentEncoding.encode(key, allowing: PercentEncoding.isAllowedInQueryComponent)
        guard let value else { return encodedKey }
        return encodedKey + "=" + PercentEncoding.encode(value, allowing: PercentEncoding.isAllowedInQueryComponent)
    }

    /// `key=value`, unencoded; `key=REDACTED` for a secret or a well-known credential key.
    public var description: String {
        guard let value else { return key }
        let hidden = isSecret || NetworkRedaction.sensitiveQueryKeys.contains(key.lowercased())
        return "\(key)=\(hidden ? NetworkRedaction.placeholder : value)"
    }
}

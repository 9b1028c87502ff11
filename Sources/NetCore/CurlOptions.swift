/// How ``NetworkRequest/curlCommand(_:)`` renders a request.
///
/// By default secrets are redacted (credential headers, secret-looking query parameters and a
/// password in the URL), TLS is verified (no `-k`) and redirects are not followed, so the command
/// repeats exactly the one request it describes.
public struct CurlOptions: Sendable, Hashable {
    /// Replace secrets with `REDACTED`; turn off only for a command you will run yourself.
    public var redactsSecrets: Bool
    /// Header names (any case) whose values are secrets.
    public var sensitiveHeaderNames: Set<String>
    /// Query keys (any case) whose values are secrets.
    public var sensitiveQueryKeys: Set<String>
    /// Add `-k`, which turns off certificate checks. Off unless asked for.
    public var allowsInsecureTLS: Bool
    /// Add `-L` to follow redirects as a session would.
    public var followsRedirects: Bool
    /// Add `--max-time` when the request has a timeout.
    public var includesTimeout: Bool

    /// The headers redacted by default.
    public static let defaultSensitiveHeaderNames: Set<String> = NetworkRedaction.sensitiveHeaderNames

    /// The query keys redacted by default; a request's ``NetworkRequest/secretQueryKeys`` are
    /// redacted as well.
    public static let defaultSensitiveQueryKeys: Set<String> = NetworkRedaction.sensitiveQueryKeys

    /// Creates options; the defaults redact secrets and add nothing that changes behaviour.
    public init(
        redactsSecrets: Bool = true,
        sensitiveHeaderNames: Set<String> = CurlOptions.defaultSensitiveHeaderNames,
        sensitiveQueryKeys: Set<String> = CurlOptions.defaultSensitiveQueryKeys,
        allowsInsecureTLS: Bool = false,
        followsRedirects: Bool = false,
        includesTimeout: Bool = true
    ) {
        self.redactsSecrets = redactsSecrets
        self.sensitiveHeaderNames = Set(sensitiveHeaderNames.map(NetworkHeaders.lowercased))
        self.sensitiveQueryKeys = Set(sensitiveQueryKeys.map { $0.lowercased() })
        self.allowsInsecureTLS = allowsInsecureTLS
        self.followsRedirects = followsRedirects
        self.includesTimeout = includesTimeout
    }

    /// Redacts secrets; the safe choice for logs.
    public static let `default` = CurlOptions()

    /// Shows every value; for a command you run yourself, never for logs.
    public static let unredacted = CurlOptions(redactsSecrets: false)
}

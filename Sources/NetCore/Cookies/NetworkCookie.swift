#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A cookie as a cookie jar stores it (RFC 6265 §5.3): the name and value a server set, and the
/// scope the jar computed for it.
public struct NetworkCookie: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `SameSite` attribute, stored as the server sent it. Net is not a browser and has no
    /// notion of the site a request comes from, so it does not change what is sent.
    public enum SameSite: String, Sendable, Hashable, Codable {
        /// `SameSite=Strict`.
        case strict
        /// `SameSite=Lax`.
        case lax
        /// `SameSite=None`.
        case none
    }

    /// The cookie's name.
    public var name: String
    /// The cookie's value, as sent.
    public var value: String
    /// The host (host-only cookies) or domain (domain cookies) it is sent to, lower case.
    public var domain: String
    /// Sent only to exactly ``domain`` (no `Domain` attribute was given), not to its subdomains.
    public var hostOnly: Bool
    /// The path prefix it is sent for.
    public var path: String
    /// When it expires; `nil` for a session cookie, which lives as long as the jar (and is saved
    /// with a jar that is persisted, as HTTPie's sessions do).
    public var expires: Date?
    /// Sent over HTTPS only.
    public var secure: Bool
    /// `HttpOnly`: kept, and sent (an HTTP client is the API the attribute allows).
    public var httpOnly: Bool
    /// `SameSite`, if the server gave a value the jar knows.
    public var sameSite: SameSite?
    /// When it was first stored: among cookies of equal path length, older ones are sent first.
    public var created: Date

    /// Creates a cookie from its parts.
    public init(
        name: String, value: String, domain: String, hostOnly: Bool = true, path: String = "/", expires: Date? = nil,
        secure: Bool = false, httpOnly: Bool = false, sameSite: SameSite? = nil, created: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = domain.lowercased()
        self.hostOnly = hostOnly
        self.path = path
        self.expires = expires
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
        self.created = created
    }

    /// `name=value; domain; path`, with the value redacted: cookie values are often credentials.
    public var description: String {
        "\(name)=\(NetworkRedaction.placeholder) (\(hostOnly ? "" : ".")\(domain)\(path))"
    }

    /// Whether it has expired at `now`.
    public func isExpired(at now: Date) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// Whether it is sent with a request to `host` and `requestPath` over a secure (`https`)
    /// connection or not (RFC 6265 §5.4 step 1).
    public func matches(host: String, path requestPath: String, secureConnection: Bool) -> Bool {
        matches(lowercasedHost: host.lowercased(), path: requestPath, secureConnection: secureConnection)
    }

    /// ``matches(host:path:secureConnection:)`` for a host already in lower case.
    func matches(lowercasedHost host: String, path requestPath: String, secureConnection: Bool) -> Bool {
        guard hostOnly ? host == domain : CookieDomain.domainMatches(host, domain) else { return false }
        guard !secure || secureConnection else { return false }
        return CookieDomain.pathMatches(requestPath, path)
    }
}

import Foundation
import NetCore

/// The cookies a ``NetworkClient`` keeps between requests (RFC 6265), in memory or in a file.
///
/// Off by default: pass a jar as `NetworkClient(cookieJar:)`. Every exchange, redirect hops
/// included, sends the cookies that match its URL (`Cookie`) and stores what its response sets
/// (`Set-Cookie`), on either transport (URLSessionTransport's own cookie handling stays off).
///
/// Rules, from RFC 6265 and RFC 6265bis:
/// - a cookie without `Domain` goes back only to the host that set it; with `Domain` to that
///   domain and its subdomains, which must include the host that set it;
/// - a `Domain` that is a public suffix (any single label such as `com` or `localhost`, and the
///   common multi-label ones such as `co.uk` or `github.io`) is refused, unless it is the host
///   itself; IP addresses never match subdomains;
/// - `Path` (or the request's directory) limits the paths; `Secure` cookies are sent over HTTPS
///   only and can only be set by an HTTPS response, as can `__Secure-` and `__Host-` cookies;
/// - `Max-Age` wins over `Expires`; a cookie lives at most 400 days; `Max-Age=0` deletes it;
/// - `HttpOnly` and `SameSite` are stored (an HTTP client is the API `HttpOnly` allows, and
///   there is no browsing context for `SameSite` to judge);
/// - at most 50 cookies per domain and 3,000 in all, 4 KiB of name and value each, with a path of
///   at most 1 KiB: the oldest go first.
public final class CookieJar: Sendable {
    private let storage: Locked<CookieStorage>
    /// Held while the file is written, so saves land in the order of the changes they save.
    private let saving = Locked(())
    private let fileURL: URL?
    private let now: @Sendable () -> Date

    /// A jar in memory, holding `cookies` to start with, within the limits a server's cookies
    /// have: a cookie whose name and value pass 4 KiB, or whose path passes 1 KiB, is left out;
    /// past 50 a domain or 3,000 in all, the newest are kept.
    ///
    /// - Parameter now: the time expiry is judged at; `Date()` by default.
    public init(cookies: [NetworkCookie] = [], now: @escaping @Sendable () -> Date = { Date() }) {
        storage = Locked(CookieStorage(cookies))
        fileURL = nil
        self.now = now
    }

    /// A jar kept in `fileURL`: read now if it exists (its cookies held to the same limits as
    /// ``init(cookies:now:)``'s), and rewritten (owner-only, 0600, replaced
    /// atomically) whenever a response changes a cookie. When the file cannot be rewritten, the
    /// exchange whose cookies could not be saved throws ``CookieJarError/unwritable(path:reason:)``
    /// rather than let the file fall silently behind the jar.
    ///
    /// - Throws: ``CookieJarError`` when the file exists but cannot be read or is not a jar.
    public init(contentsOf fileURL: URL, now: @escaping @Sendable () -> Date = { Date() }) throws {
        var cookies: [NetworkCookie] = []
        if FileManager.default.fileExists(atPath: fileURL.path) {
            cookies = try CookieFile.read(fileURL)
        }
        storage = Locked(CookieStorage(cookies))
        self.fileURL = fileURL
        self.now = now
    }

    /// Every unexpired cookie.
    public var cookies: [NetworkCookie] {
        let now = now()
        return storage.withLock { $0.cookies.filter { !$0.isExpired(at: now) } }
    }

    /// The cookies a request to `url` would carry, in the order they are sent.
    public func cookies(for url: URL) -> [NetworkCookie] {
        let now = now()
        return storage.withLock { $0.cookies(for: url, now: now) }
    }

    /// Stores what the `Set-Cookie` fields of a response to `url` set.
    public func storeCookies(from headers: NetworkHeaders, for url: URL) throws {
        let values = headers.values(for: "Set-Cookie")
        guard !values.isEmpty else { return }
        let now = now()
        let changed = storage.withLock { $0.store(setCookieValues: values, from: url, now: now) }
        if changed { try save() }
    }

    /// Removes every cookie (and rewrites the file, if any).
    public func removeAll() throws {
        storage.withLock { $0.removeAll() }
        try save()
    }

    /// The `Cookie` value for a request to `url`, or `nil` when no cookie applies.
    func cookieHeader(for url: URL) -> String? {
        let now = now()
        return storage.withLock { $0.cookieHeader(for: url, now: now) }
    }

    /// Writes the jar as it is when the write starts: a save that began later always holds a
    /// snapshot at least as new, so an older one never lands over a newer one.
    private func save() throws {
        guard let fileURL else { return }
        try saving.withLock { _ in try CookieFile.write(cookies, to: fileURL) }
    }
}

/// Why a ``CookieJar`` file could not be used.
public enum CookieJarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not a cookie jar Net wrote (or is damaged).
    case malformed(path: String, reason: String)
    /// The file cannot be written.
    case unwritable(path: String, reason: String)

    /// A readable account of the failure.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the cookie jar \(path): \(reason)"
        case .malformed(let path, let reason): "\(path) is not a cookie jar: \(reason)"
        case .unwritable(let path, let reason): "cannot write the cookie jar \(path): \(reason)"
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The cookies of a jar and RFC 6265's storage and retrieval rules (§5.3, §5.4), as a value:
/// ``NetworkCookie``s in, a `Cookie` header out. Bounded, so a hostile server cannot grow it
/// without limit: at most ``maximumPerDomain`` cookies per domain and ``maximumCount`` in all
/// (past which the oldest tenth goes at once).
package struct CookieStorage: Sendable {
    /// A cookie and when it was stored, in storing order (ties of `created` keep this order).
    private struct Stored: Sendable {
        var cookie: NetworkCookie
        var sequence: Int
    }

    /// The cookies by domain: every rule and limit looks at one domain, so a jar holding
    /// thousands of cookies costs a hostile server's flood no more than a small one.
    private var byDomain: [String: [Stored]] = [:]
    private var count = 0
    private var nextSequence = 0

    /// RFC 6265 §6.1's minimums, which browsers use as limits.
    package static let maximumPerDomain = 50
    package static let maximumCount = 3000

    /// A storage holding `cookies`, within the same limits as cookies a server sets (a jar file
    /// edited to hold more keeps the newest of each domain, then of all; a cookie whose name and
    /// value, or whose path, is larger than a server's may be is left out, so that one stored
    /// before a limit existed is neither sent nor kept from being replaced).
    package init(_ cookies: [NetworkCookie] = [], now: Date = Date()) {
        for cookie in cookies where Self.isWithinSizeLimits(cookie) { insert(cookie) }
        for domain in Array(byDomain.keys) { evict(from: domain, now: now) }
    }

    /// The cookies, unexpired or not yet swept, in storing order.
    package var cookies: [NetworkCookie] {
        byDomain.values.joined().sorted { $0.sequence < $1.sequence }.map(\.cookie)
    }

    /// Stores what the `Set-Cookie` fields of a response to `url` set, at `now`. Returns whether
    /// anything changed.
    @discardableResult
    package mutating func store(setCookieValues values: [String], from url: URL, now: Date) -> Bool {
        var changed = false
        for value in values {
            for field in SetCookie.fields(in: value) {
                if let parsed = SetCookie(field), store(parsed, from: url, now: now) { changed = true }
            }
        }
        return changed
    }

    /// The `Cookie` field value for a request to `url` at `now`, or `nil` when no cookie applies:
    /// longer paths first, then older cookies first (§5.4 step 2).
    package func cookieHeader(for url: URL, now: Date) -> String? {
        let matching = cookies(for: url, now: now)
        return matching.isEmpty ? nil : matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// The cookies sent with a request to `url` at `now`, in sending order.
    package func cookies(for url: URL, now: Date) -> [NetworkCookie] {
        guard let host = url.host?.lowercased() else { return [] }
        let secure = url.scheme?.lowercased() == "https"
        let path = Self.requestPath(of: url)
        // Only the host's own domain and its parents can hold a cookie for it.
        var domains = [host]
        if !CookieDomain.isIPAddress(host) {
            var rest = host[...]
            while let dot = rest.firstIndex(of: ".") {
                rest = rest[rest.index(after: dot)...]
                domains.append(String(rest))
            }
        }
        return domains.flatMap { byDomain[$0] ?? [] }
            .filter { !$0.cookie.isExpired(at: now) && $0.cookie.matches(lowercasedHost: host, path: path, secureConnection: secure) }
            .sorted { lhs, rhs in
                if lhs.cookie.path.count != rhs.cookie.path.count { return lhs.cookie.path.count > rhs.cookie.path.count }
                if lhs.cookie.created != rhs.cookie.created { return lhs.cookie.created < rhs.cookie.created }
                return lhs.sequence < rhs.sequence
            }
            .map(\.cookie)
    }

    /// Drops expired cookies.
    package mutating func removeExpired(now: Date) {
        for (domain, stored) in byDomain {
            let kept = stored.filter { !$0.cookie.isExpired(at: now) }
            count -= stored.count - kept.count
            byDomain[domain] = kept.isEmpty ? nil : kept
        }
    }

    /// Drops every cookie.
    package mutating func removeAll() {
        byDomain = [:]
        count = 0
    }

    /// §5.3 for one parsed field.
    private mutating func store(_ setCookie: SetCookie, from url: URL, now: Date) -> Bool {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return false }
        let secureOrigin = url.scheme?.lowercased() == "https"
        // RFC 6265bis: an insecure origin cannot set a Secure cookie, nor use the prefixes.
        if setCookie.secure && !secureOrigin { return false }
        if setCookie.name.hasPrefix("__Secure-") && !setCookie.secure { return false }
        if setCookie.name.hasPrefix("__Host-") && (!setCookie.secure || setCookie.domain != nil || setCookie.path != "/") { return false }

        var domain = host
        var hostOnly = true
        if let given = setCookie.domain {
            if CookieDomain.isPublicSuffix(given) {
                guard given == host else { return false }  // step 5: a public suffix only as its own host
            } else {
                guard CookieDomain.domainMatches(host, given) else { return false }
                domain = given
                hostOnly = false
            }
        }
        let expires: Date? = if let maxAge = setCookie.maxAge {
            maxAge <= 0 ? Date.distantPast : now.addingTimeInterval(TimeInterval(min(maxAge, 400 * 86_400)))
        } else {
            // RFC 6265bis: no cookie lives more than 400 days.
            setCookie.expires.map { min($0, now.addingTimeInterval(400 * 86_400)) }
        }
        let path = setCookie.path ?? CookieDomain.defaultPath(of: Self.requestPath(of: url))
        // A given `Path` over 1 KiB is ignored as an attribute; the default, taken from the
        // request's URL (which a redirect's `Location` chooses), is held to the same size, or a
        // server could make every cookie as long as its longest URL.
        guard path.utf8.count <= SetCookie.maximumAttributeBytes else { return false }
        // RFC 6265bis §5.7 step 16: an insecure origin cannot replace or shadow a Secure cookie.
        if !secureOrigin {
            let related = byDomain.filter { CookieDomain.domainMatches(domain, $0.key) || CookieDomain.domainMatches($0.key, domain) }
            if related.values.joined().contains(where: { $0.cookie.secure && $0.cookie.name == setCookie.name && CookieDomain.pathMatches(path, $0.cookie.path) }) {
                return false
            }
        }
        var cookie = NetworkCookie(
            name: setCookie.name, value: setCookie.value, domain: domain, hostOnly: hostOnly, path: path, expires: expires,
            secure: setCookie.secure, httpOnly: setCookie.httpOnly, sameSite: setCookie.sameSite, created: now)
        let existing = byDomain[domain]?.firstIndex { $0.cookie.name == setCookie.name && $0.cookie.path == path }
        if let existing, let old = byDomain[domain]?.remove(at: existing) {
            cookie.created = old.cookie.created
            count -= 1
        }
        guard !cookie.isExpired(at: now) else { return existing != nil }
        insert(cookie)
        evict(from: domain, now: now)
        return true
    }

    /// The sizes `SetCookie` and `store` hold a server's cookies to.
    private static func isWithinSizeLimits(_ cookie: NetworkCookie) -> Bool {
        cookie.name.utf8.count + cookie.value.utf8.count <= SetCookie.maximumNameValueBytes
            && cookie.path.utf8.count <= SetCookie.maximumAttributeBytes
    }

    private mutating func insert(_ cookie: NetworkCookie) {
        byDomain[cookie.domain, default: []].append(Stored(cookie: cookie, sequence: nextSequence))
        nextSequence += 1
        count += 1
    }

    /// Keeps the limits: expired cookies go first, then the oldest of the full domain (or of all).
    private mutating func evict(from domain: String, now: Date) {
        if var bucket = byDomain[domain], bucket.count > Self.maximumPerDomain {
            let before = bucket.count
            bucket.removeAll { $0.cookie.isExpired(at: now) }
            while bucket.count > Self.maximumPerDomain, let oldest = bucket.indices.min(by: { Self.isOlder(bucket[$0], than: bucket[$1]) }) {
                bucket.remove(at: oldest)
            }
            count -= before - bucket.count
            byDomain[domain] = bucket
        }
        guard count > Self.maximumCount else { return }
        removeExpired(now: now)
        guard count > Self.maximumCount else { return }
        // Down to nine tenths at once, as browsers purge: one sort per 300 new cookies rather
        // than a scan of all 3,000 for each one.
        let all = byDomain.values.joined().sorted { Self.isOlder($0, than: $1) }
        let dropped = Set(all.prefix(count - Self.maximumCount * 9 / 10).map(\.sequence))
        for (key, bucket) in byDomain {
            let kept = bucket.filter { !dropped.contains($0.sequence) }
            byDomain[key] = kept.isEmpty ? nil : kept
        }
        count -= dropped.count
    }

    private static func isOlder(_ lhs: Stored, than rhs: Stored) -> Bool {
        lhs.cookie.created != rhs.cookie.created ? lhs.cookie.created < rhs.cookie.created : lhs.sequence < rhs.sequence
    }

    /// The path as sent, percent-encoded and with its trailing slash (`URL.path` drops both).
    private static func requestPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }
}

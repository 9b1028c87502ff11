import Foundation
import NetCore

/// A private HTTP cache with RFC 9111's rules for a client, for any transport.
///
/// Give it to ``NetworkClient`` (`cache:`) or wrap a transport in ``CachingTransport``. It stores
/// cacheable responses to GET and HEAD, serves them while fresh, revalidates stale ones with
/// `If-None-Match` / `If-Modified-Since`, keeps one variant per combination of `Vary`ed request
/// headers (and, unless told otherwise, per credential: ``separatesCredentials``), and drops what it
/// holds for a URL after a successful POST, PUT, PATCH or DELETE to it.
/// Each request's ``NetworkRequest/cachePolicy`` can override the rules; each response says where
/// it came from in ``NetworkResponseHead/cacheStatus``.
public final class HTTPCache: Sendable {
    /// Where responses are kept.
    public let storage: any HTTPCacheStorage
    /// Responses with larger bodies are not stored.
    public let maximumEntrySize: Int
    /// Whether a response is kept for the credentials that fetched it (every header Net knows as
    /// one: `Authorization`, `Cookie`, `X-API-Key`…), as if the server had said `Vary` on them,
    /// and served only to requests carrying the same ones: one client can then serve many users.
    /// A response the server marks `public` or `s-maxage` is shared whatever the credentials.
    /// Turn it off for a client of one user whose cookies or tokens change often (a load
    /// balancer's cookie set on every response), where entries kept apart would rarely match.
    public let separatesCredentials: Bool
    /// What one resource's variants may take together: half the storage's limit, when the cache
    /// knows it, so that one resource many users fetch cannot push every other out.
    private let variantsByteBudget: Int?
    /// The keys with a `stale-while-revalidate` revalidation in the background now: one per key,
    /// so that hits on a stale entry whose revalidation stalls do not each start another.
    private let backgroundRevalidations = Locked(Set<String>())

    /// Statuses cacheable without explicit freshness (RFC 9110 §15.1, "heuristically cacheable").
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// A cache on `storage`; bodies over `maximumEntrySize` bytes (4 MiB by default) are not
    /// stored; responses are kept per credential unless `separatesCredentials` is `false`.
    public init(storage: any HTTPCacheStorage = MemoryCacheStorage(), maximumEntrySize: Int = 4 << 20,
                separatesCredentials: Bool = true) {
        self.storage = storage
        self.maximumEntrySize = max(0, maximumEntrySize)
        self.separatesCredentials = separatesCredentials
        let limit = (storage as? MemoryCacheStorage)?.byteLimit ?? (storage as? DiskCacheStorage)?.byteLimit
        variantsByteBudget = limit.map { $0 / 2 }
    }

    /// A cache in memory, holding at most `byteLimit` bytes.
    public static func memory(byteLimit: Int = 16 << 20, separatesCredentials: Bool = true) -> HTTPCache {
        HTTPCache(storage: MemoryCacheStorage(byteLimit: byteLimit), separatesCredentials: separatesCredentials)
    }

    /// A cache on disk in `directory`, holding at most `byteLimit` bytes, that survives restarts.
    public static func disk(directory: URL, byteLimit: Int = 64 << 20, separatesCredentials: Bool = true) throws -> HTTPCache {
        HTTPCache(storage: try DiskCacheStorage(directory: directory, byteLimit: byteLimit), separatesCredentials: separatesCredentials)
    }

    /// Forgets every stored response.
    public func removeAll() { storage.removeAll() }

    /// Forgets the stored responses for `url` (GET and HEAD).
    public func removeResponses(for url: URL) {
        for method in ["GET", "HEAD"] { storage.setVariants([], forKey: Self.key(method: method, url: url)) }
    }

    /// The stored response `request` may use, if any: its own method's first, then GET's for HEAD.
    func lookup(_ request: NetworkRequest) -> CachedResponse? {
        let methods = request.httpMethod == .head ? ["HEAD", "GET"] : [request.httpMethod.rawValue]
        var values = RequestVaryValues(request)
        for method in methods {
            for variant in storage.variants(forKey: Self.key(method: method, url: request.url))
            where variant.matches(&values, separatingCredentials: separatesCredentials) {
                return variant
            }
        }
        return nil
    }

    /// Stores `response` to `request` if the rules allow; `body` is its full body.
    func storeIfAllowed(_ head: NetworkResponseHead, body: Data, for request: NetworkRequest, requestTime: Date, responseTime: Date) {
        guard let entry = entryIfCacheable(head, body: body, for: request, requestTime: requestTime, responseTime: responseTime) else {
            // A response that may not be stored (no-store, say) still replaces the old variant.
            if CacheControl(fields: head.headers.values(for: "Cache-Control")).noStore { removeVariant(matching: request) }
            return
        }
        store(entry, for: request)
    }

    /// The most variants kept for one URL and method (the most recently stored), whether `Vary`
    /// or the credentials that fetched them tell them apart.
    static let maximumVariantsPerKey = 64

    /// Puts `entry` in place of the variant `request` matches, most recent first.
    ///
    /// `Set-Cookie` fields are never stored (RFC 9111 §3.1 allows leaving them out): served again
    /// from the cache, they would bring back cookies the server has changed or deleted since, and
    /// a 304's own fields, the only new ones, still reach a ``CookieJar``.
    func store(_ entry: CachedResponse, for request: NetworkRequest) {
        var entry = entry
        entry.headerFields.removeAll { $0.first?.caseInsensitiveCompare("Set-Cookie") == .orderedSame }
        let key = Self.key(method: entry.method, url: request.url)
        var values = RequestVaryValues(request)
        var variants = storage.variants(forKey: key).filter {
            !($0.varyValues == entry.varyValues) && !$0.matches(&values, separatingCredentials: separatesCredentials)
        }
        variants.insert(entry, at: 0)
        // Each hit scans a key's variants, and the disk rewrites them all: one per user of a
        // server's client would grow both with its users, and their bytes could push out every
        // other resource. The newest is always kept.
        var kept = 1
        var bytes = entry.byteCount
        while kept < min(variants.count, Self.maximumVariantsPerKey) {
            bytes += variants[kept].byteCount
            if let budget = variantsByteBudget, bytes > budget { break }
            kept += 1
        }
        storage.setVariants(Array(variants.prefix(kept)), forKey: key)
    }

    private func removeVariant(matching request: NetworkRequest) {
        let key = Self.key(method: request.httpMethod.rawValue, url: request.url)
        var values = RequestVaryValues(request)
        storage.setVariants(storage.variants(forKey: key).filter { !$0.matches(&values, separatingCredentials: separatesCredentials) }, forKey: key)
    }

    /// The entry to store, or `nil` when RFC 9111 §3 says not to (or it would never be usable).
    func entryIfCacheable(_ head: NetworkResponseHead, body: Data, for request: NetworkRequest, requestTime: Date, responseTime: Date) -> CachedResponse? {
        guard request.httpMethod == .get || request.httpMethod == .head, body.count <= maximumEntrySize else { return nil }
        let requestControl = CacheControl(fields: request.headers.values(for: "Cache-Control"))
        let control = CacheControl(fields: head.headers.values(for: "Cache-Control"))
        guard !requestControl.noStore, !control.noStore else { return nil }
        let explicit = control.maxAge != nil || head.headers["Expires"] != nil || control.isPublic
        let status = head.statusCode.rawValue
        guard Self.heuristicallyCacheable.contains(status) || (explicit && (200..<400).contains(status) && status != 206 && status != 304) else { return nil }
        // §3.5: a shared answer to an authorised request needs the server's explicit permission,
        // unless the cache keeps it for that authorisation alone.
        if !separatesCredentials, request.headers.contains(name: "Authorization") {
            guard control.isPublic || control.mustRevalidate || control.sharedMaxAge != nil else { return nil }
        }
        let varyNames = head.headers.values(for: "Vary")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        guard !varyNames.contains("*") else { return nil }
        var varyValues: [String: String?] = [:]
        for name in varyNames { varyValues[name] = CachedResponse.varyValue(of: name, in: request) }
        // Kept for the credentials that fetched it as if the server had said `Vary` on them: one
        // client often serves many users (a server's), and an answer to one user's Authorization,
        // Cookie or API key must never reach a request with other credentials, or none. Unless
        // the server said it may be shared.
        if separatesCredentials, !control.allowsSharing {
            for field in request.headers where request.isSecretHeader(field.name) {
                let name = field.name.lowercased()
                if varyValues[name] == nil { varyValues[name] = CachedResponse.varyValue(of: name, in: request) }
            }
        }
        let entry = CachedResponse(
            method: request.httpMethod.rawValue, statusCode: status, headerFields: head.headers.map { [$0.name, $0.value] },
            url: head.url, body: request.httpMethod == .head ? Data() : body,
            requestTime: requestTime, responseTime: responseTime, varyValues: varyValues
        ).withFreshnessComputed()
        // Worth keeping only if it can ever be used without a full reload.
        guard entry.freshness.lifetime > .zero || entry.hasValidator || control.staleWhileRevalidate != nil else { return nil }
        return entry
    }

    /// After a successful unsafe request: drops what is stored for its URL and for the
    /// same-origin `Location` and `Content-Location` it names (RFC 9111 §4.4).
    func invalidate(after request: NetworkRequest, response head: NetworkResponseHead) {
        removeResponses(for: request.url)
        for name in ["Location", "Content-Location"] {
            guard let value = head.headers[name], let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
                target.scheme == request.url.scheme, target.host == request.url.host, target.port == request.url.port
            else { continue }
            removeResponses(for: target)
        }
    }

    /// Claims the one background revalidation `request`'s key may have at a time: `false` while
    /// another runs. The claimant calls ``releaseBackgroundRevalidation(for:)`` once it ends.
    func claimBackgroundRevalidation(for request: NetworkRequest) -> Bool {
        let key = Self.key(method: request.httpMethod.rawValue, url: request.url)
        return backgroundRevalidations.withLock { $0.insert(key).inserted }
    }

    /// Ends the claim of ``claimBackgroundRevalidation(for:)``.
    func releaseBackgroundRevalidation(for request: NetworkRequest) {
        let key = Self.key(method: request.httpMethod.rawValue, url: request.url)
        backgroundRevalidations.withLock { _ = $0.remove(key) }
    }

    /// How many background revalidations run now (tests).
    var backgroundRevalidationCount: Int { backgroundRevalidations.withLock(\.count) }

    /// `GET https://host/path?query`, without the fragment.
    static func key(method: String, url: URL) -> String {
        var text = url.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        return method + " " + text
    }
}

import Foundation
import NetCore

/// The pipeline stage that answers from an ``HTTPCache`` where the rules allow and sends the rest through
/// `base`, so caching works the same on every transport (URLSession, the stub, your own).
///
/// ``NetworkClient`` builds one when given a cache; wrap a transport yourself for your own
/// ``NetworkSession``: `CachingTransport(URLSessionTransport(), cache: .memory())`.
public struct CachingTransport: Transport {
    /// The transport that reaches the network.
    public let base: any Transport
    /// The cache consulted and filled.
    public let cache: HTTPCache

    private let clock: any Clock<Duration>
    private let dates: ClockedDate

    /// Wraps `base` with `cache`; freshness and ages are measured on `clock` (a manual clock in
    /// tests checks expiry without waiting).
    public init(_ base: any Transport, cache: HTTPCache, clock: any Clock<Duration> = ContinuousClock()) {
        self.base = base
        self.cache = cache
        self.clock = clock
        self.dates = ClockedDate(clock)
    }

    /// Answers from the cache, revalidates, or sends through `base`, as the request's
    /// ``NetworkRequest/cachePolicy`` and RFC 9111 say.
    public func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        guard request.httpMethod == .get || request.httpMethod == .head else {
            let response = try await base.exchange(request, progress: progress)
            if !request.httpMethod.isSafe, (200..<400).contains(response.statusCode.rawValue) {
                cache.invalidate(after: request, response: response.response)
            }
            return response
        }
        let stored = request.cachePolicy == .reloadIgnoringCacheData ? nil : cache.lookup(request)
        switch request.cachePolicy {
        case .returnCacheDataDontLoad:
            guard let stored else { throw NetworkError.transport(.notInCache(request.redactedURL)) }
            return try deliver(stored, as: .cache, for: request)
        case .returnCacheDataElseLoad:
            if let stored { return try deliver(stored, as: .cache, for: request) }
        case .useProtocolCachePolicy:
            if let stored {
                let now = dates.now()
                let freshness = stored.freshness
                let control = stored.cacheControl
                let requestControl = CacheControl(fields: request.headers.values(for: "Cache-Control"))
                let reloadAsked = requestControl.noCache || requestControl.maxAge == .zero
                    || request.headers.values(for: "Pragma").contains { $0.lowercased().contains("no-cache") }
                // RFC 8246: an immutable response is not revalidated while fresh, even on reload.
                let mustCheck = control.noCache || (reloadAsked && !(control.immutable && freshness.isFresh(at: now)))
                if !mustCheck && freshness.isFresh(at: now) {
                    return try deliver(stored, as: .cache, for: request)
                }
                if !mustCheck, !control.mustRevalidate, let window = control.staleWhileRevalidate, freshness.staleness(at: now) <= window {
                    // One at a time per key: a server that stalls revalidations must not gain a
                    // task (and a pooled connection) with every hit on the stale entry.
                    if cache.claimBackgroundRevalidation(for: request) {
                        // The stored response's validators, not the caller's: the caller has its answer.
                        var background = request
                        for name in ["If-None-Match", "If-Modified-Since"] { background.headers.remove(name: name) }
                        Task { [self, background] in
                            defer { cache.releaseBackgroundRevalidation(for: request) }
                            // Bounded like any call: the entry size, and a minute at most, whatever
                            // the request's own timeout (the claim holds the key meanwhile).
                            let deadline = CallDeadline(request: request, timeout: .seconds(60), clock: clock, attemptTimeout: .seconds(60))
                            _ = try? await deadline.run { _ in
                                try await revalidate(background, stored: stored, progress: nil).body.collect(upTo: Int64(cache.maximumEntrySize))
                            }
                        }
                    }
                    return try deliver(stored, as: .cache, for: request)
                }
                if stored.hasValidator {
                    return try await revalidate(request, stored: stored, progress: progress)
                }
            }
        case .reloadIgnoringCacheData:
            break
        }
        return try await fetch(request, progress: progress)
    }

    /// ``base``'s limits.
    public var responseLimits: ResponseLimits { base.responseLimits }

    /// Sends `request` through `base` and stores the answer if it may be stored.
    private func fetch(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        let requestTime = dates.now()
        let response = try await base.exchange(request, progress: progress)
        return try storing(response, for: request, requestTime: requestTime, responseTime: dates.now())
    }

    /// Asks the server whether `stored` is still current; a 304 refreshes and serves it.
    ///
    /// A request with validators of the caller's own goes as it is, and its 304 to the caller:
    /// that 304 speaks of the caller's representation, not the stored one, and merged it would
    /// serve the stored body (another variant's, another user's) under the caller's validator.
    private func revalidate(_ request: NetworkRequest, stored: CachedResponse, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        if request.headers.contains(name: "If-None-Match") || request.headers.contains(name: "If-Modified-Since") {
            return try await fetch(request, progress: progress)
        }
        var conditional = request
        let storedHeaders = stored.headers
        if let etag = storedHeaders["ETag"] {
            try conditional.headers.set(name: "If-None-Match", value: etag)
        }
        if let lastModified = storedHeaders["Last-Modified"] {
            try conditional.headers.set(name: "If-Modified-Since", value: lastModified)
        }
        let requestTime = dates.now()
        let response = try await base.exchange(conditional, progress: progress)
        let responseTime = dates.now()
        guard response.statusCode == 304 else {
            return try storing(response, for: request, requestTime: requestTime, responseTime: responseTime)
        }
        _ = try? await response.body.collect(upTo: 0)  // a 304 has no body; ends the exchange
        let refreshed = Self.merging(response.response.headers, into: stored, requestTime: requestTime, responseTime: responseTime)
        cache.store(refreshed, for: request)
        return try deliver(refreshed, as: .revalidated, for: request)
    }

    /// RFC 9111 §3.2: the 304's fields replace the stored ones of the same name, except the
    /// framing fields, which describe the empty 304 and not the stored body.
    static func merging(_ fields: NetworkHeaders, into stored: CachedResponse, requestTime: Date, responseTime: Date) -> CachedResponse {
        let framing: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range"]
        let replaced = Set(fields.map { $0.name.lowercased() }).subtracting(framing)
        var merged = stored
        merged.headerFields = stored.headerFields.filter { $0.count == 2 && !replaced.contains($0[0].lowercased()) }
            + fields.filter { replaced.contains($0.name.lowercased()) }.map { [$0.name, $0.value] }
        merged.requestTime = requestTime
        merged.responseTime = responseTime
        return merged.withFreshnessComputed()
    }

    /// `stored` as a response, with its `Age`.
    private func deliver(_ stored: CachedResponse, as status: NetworkCacheStatus, for request: NetworkRequest) throws -> NetworkStreamResponse {
        var headers = stored.headers
        let age = stored.freshness.age(at: dates.now()).components.seconds
        try headers.set(name: "Age", value: String(max(0, age)))
        var head = NetworkResponseHead(statusCode: HTTPCode(stored.statusCode), headers: headers, url: stored.url)
        head.cacheStatus = status
        let body = request.httpMethod == .head ? Data() : stored.body
        return NetworkStreamResponse(response: head, body: NetworkResponseBody(body), originalRequest: request)
    }

    /// `response` with its body copied aside as it is read (up to the cache's entry size), and
    /// handed to ``HTTPCache/storeIfAllowed(_:body:for:requestTime:responseTime:)`` once it has
    /// been read to its end. A body declared larger than an entry is not copied at all.
    private func storing(_ response: NetworkStreamResponse, for request: NetworkRequest, requestTime: Date, responseTime: Date) throws -> NetworkStreamResponse {
        let (cache, head, limit) = (cache, response.response, cache.maximumEntrySize)
        // Framed here as well as above the cache, so a body cut short is never stored; an
        // ambiguous length throws here, whatever its size, before anything is read.
        let framed = try BodyFraming.checked(response.body, head: head, method: request.httpMethod)
        guard (head.expectedContentLength ?? 0) <= Int64(limit) else { return response }
        var filled = response
        filled.body = CacheFillingChunks.body(framed, limit: limit) { body in
            cache.storeIfAllowed(head, body: body, for: request, requestTime: requestTime, responseTime: responseTime)
        }
        return filled
    }
}

import NetCore

/// A ready-made ``NetworkSession`` composed from ``NetworkInterceptor``s and the pipeline's
/// optional stages (cache, concurrency limit).
///
/// ```swift
/// let client = NetworkClient(
///     transport: URLSessionTransport(),
///     interceptors: [auth, RetryPolicy(), LoggingInterceptor { print($0) }],
///     maximumConcurrentRequests: 8)
/// let films = try await client.requestData(for: request).validate().jsonDecode([Film].self)
/// ```
///
/// A call runs, outermost first: the call deadline, the interceptors (the first outermost: before
/// each attempt they adapt the request in order, and after it they see the result in reverse
/// order, the first answer other than `.nothing` winning), redirects, the cache, the concurrency
/// limit, the transport (Docs/Architecture.md). So a ``LoggingInterceptor`` placed last logs the
/// request as sent (signed) and every result, retried ones included. `retryNumber` counts the
/// call's retries, whoever asked; ``RetryPolicy``'s budget counts only the retries it asked for
/// itself, so an authentication refresh does not use it up.
public actor NetworkClient: NetworkSession {
    /// The interceptors, in the order they run.
    public let interceptors: [any NetworkInterceptor]
    /// Every setting below, as each call reads them: constants, so without visiting the actor
    /// (an executor hop there and back).
    nonisolated let fixedSettings: SessionSettings
    /// Sends the requests: the transport, wrapped in the cache and concurrency-limit stages when
    /// they are set.
    public nonisolated var transport: any Transport { fixedSettings.transport }
    /// The most retries one call may make in all, whatever the interceptors ask.
    public nonisolated var maximumRetryCount: Int { fixedSettings.maximumRetryCount }
    /// Whether calls follow redirects.
    public nonisolated var redirectPolicy: RedirectPolicy { fixedSettings.redirectPolicy }
    /// The limit for a whole call when its request sets no timeout.
    public nonisolated var timeout: Duration { fixedSettings.timeout }
    /// The most one attempt may take, if set.
    public nonisolated var attemptTimeout: Duration? { fixedSettings.attemptTimeout }
    /// The clock deadlines, retry waits, authentication refresh windows and cache freshness are
    /// measured on.
    public nonisolated var clock: any Clock<Duration> { fixedSettings.clock }

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - transport: what sends requests; a new ``URLSessionTransport`` by default.
    ///   - interceptors: run in order; see the type's documentation.
    ///   - maximumConcurrentRequests: at most this many exchanges at once (a streamed one counts
    ///     until its body ends); the rest wait in order. `nil` (the default) for no limit.
    ///   - maximumRetryCount: the cap on retries per call, five by default.
    ///   - cache: an HTTP cache for GET and HEAD responses (see ``HTTPCache``), or `nil` (the
    ///     default) for none. Cache hits never take a concurrency permit.
    ///   - redirectPolicy: `.follow(limit: 10)` by default.
    ///   - timeout: the whole call's limit when a request sets none; 60 s by default.
    ///   - attemptTimeout: the most one attempt may take within `timeout`; `nil` (the default) for none.
    ///   - clock: what deadlines, retry waits, authentication refresh windows and cache freshness
    ///     are measured on; `ContinuousClock` by default, a manual clock in tests.
    ///   - sharesIdenticalGETs: send one request for identical GETs in flight at once, handing
    ///     every caller the same response (see ``SharedRequestsTransport``); off by default.
    ///   - cookieJar: the cookies to send and keep (see ``CookieJar``); `nil` (the default) for none.
    public init(
        transport: any Transport = URLSessionTransport(),
        interceptors: [any NetworkInterceptor] = [],
        maximumConcurrentRequests: Int? = nil,
        maximumRetryCount: Int = 5,
        cache: HTTPCache? = nil,
        redirectPolicy: RedirectPolicy = .follow(limit: 10),
        timeout: Duration = .seconds(60),
        attemptTimeout: Duration? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        sharesIdenticalGETs: Bool = false,
        cookieJar: CookieJar? = nil
    ) {
        var transport = transport
        if let maximumConcurrentRequests {
            transport = ConcurrencyLimitedTransport(transport, maximumConcurrentRequests: maximumConcurrentRequests)
        }
        if let cache {
            transport = CachingTransport(transport, cache: cache, clock: clock)
        }
        if let cookieJar {
            transport = CookieTransport(transport, jar: cookieJar)
        }
        if sharesIdenticalGETs {
            transport = SharedRequestsTransport(transport, timeout: timeout, attemptTimeout: attemptTimeout, clock: clock)
        }
        self.interceptors = interceptors
        fixedSettings = SessionSettings(
            transport: transport, maximumRetryCount: max(0, maximumRetryCount), redirectPolicy: redirectPolicy,
            timeout: timeout, attemptTimeout: attemptTimeout, clock: clock,
            callInterceptors: interceptors.compactMap { $0 as? any NetworkCallInterceptor },
            observesAttempts: !interceptors.isEmpty, keepsRetryLedger: !interceptors.isEmpty,
            attemptsWaitOnlyOnExchanges: interceptors.allSatisfy { $0 is any RequestInterceptionWithoutWaiting })
    }

    /// Runs every interceptor's ``NetworkInterceptor/interceptRequest(_:)`` in order. Nonisolated,
    /// as the interceptors are constant: concurrent calls do not queue on the actor for it.
    public nonisolated func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible {
        var request = originalRequest
        for interceptor in interceptors {
            request = try await interceptor.interceptRequest(request)
        }
        return request
    }

    /// Asks the interceptors in reverse order; the first decision other than `.nothing` wins.
    /// Nonisolated, like ``interceptRequest(networkSession:originalRequest:)``.
    public nonisolated func interceptResponse(
        networkSession: any NetworkSession,
        originalRequest: NetworkRequest,
        retryNumber: Int,
        result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult {
        let ledger = RetryLedger.current
        for (index, interceptor) in interceptors.enumerated().reversed() {
            let decision = try await RetryLedger.$asking.withValue(index) {
                try await interceptor.interceptResponse(originalRequest, retryNumber: retryNumber, result: result)
            }
            if case .nothing = decision { continue }
            ledger?.recordRetry(by: index, named: String(describing: type(of: interceptor)))
            return decision
        }
        return .nothing
    }
}

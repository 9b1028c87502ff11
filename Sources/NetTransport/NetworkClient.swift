import NetCore

/// A ready-made ``NetworkSession`` composed from ``NetworkInterceptor``s, with an optional limit
/// on requests in flight.
///
/// ```swift
/// let client = NetworkClient(
///     transport: URLSessionTransport(),
///     interceptors: [auth, RetryPolicy(), LoggingInterceptor { print($0) }],
///     maximumConcurrentRequests: 8)
/// let films = try await client.requestData(for: request).validate().jsonDecode([Film].self)
/// ```
///
/// Interceptors wrap the transport like layers, the first outermost: before each attempt they
/// adapt the request in order, and after it they see the result in reverse order, the first
/// answer other than `.nothing` winning. So a ``LoggingInterceptor`` placed last logs the
/// request as sent (signed) and every result, retried ones included.
public actor NetworkClient: NetworkSession {
    /// Sends the requests (wrapped in a ``ConcurrencyLimitedTransport`` when a limit is set).
    public let transport: any Transport
    /// The interceptors, in the order they run.
    public let interceptors: [any NetworkInterceptor]
    /// The most retries one call may make, whatever the interceptors ask.
    public let maximumRetryCount: Int

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - transport: what sends requests; a new ``URLSessionTransport`` by default.
    ///   - interceptors: run in order; see the type's documentation.
    ///   - maximumConcurrentRequests: at most this many requests on the wire at once; the rest
    ///     wait in order. `nil` (the default) for no limit.
    ///   - maximumRetryCount: the cap on retries per call, five by default.
    ///   - cache: an HTTP cache for GET and HEAD responses (see ``HTTPCache``), or `nil` (the
    ///     default) for none. Cache hits never take a concurrency permit.
    public init(
        transport: any Transport = URLSessionTransport(),
        interceptors: [any NetworkInterceptor] = [],
        maximumConcurrentRequests: Int? = nil,
        maximumRetryCount: Int = 5,
        cache: HTTPCache? = nil
    ) {
        var transport = transport
        if let maximumConcurrentRequests {
            transport = ConcurrencyLimitedTransport(transport, maximumConcurrentRequests: maximumConcurrentRequests)
        }
        if let cache {
            transport = CachingTransport(transport, cache: cache)
        }
        self.transport = transport
        self.interceptors = interceptors
        self.maximumRetryCount = max(0, maximumRetryCount)
    }

    /// Runs every interceptor's ``NetworkInterceptor/interceptRequest(_:)`` in order.
    public func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible {
        var request = originalRequest
        for interceptor in interceptors {
            request = try await interceptor.interceptRequest(request)
        }
        return request
    }

    /// Asks the interceptors in reverse order; the first decision other than `.nothing` wins.
    public func interceptResponse(
        networkSession: any NetworkSession,
        originalRequest: NetworkRequest,
        retryNumber: Int,
        result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult {
        for interceptor in interceptors.reversed() {
            let decision = try await interceptor.interceptResponse(originalRequest, retryNumber: retryNumber, result: result)
            if case .nothing = decision { continue }
            return decision
        }
        return .nothing
    }
}

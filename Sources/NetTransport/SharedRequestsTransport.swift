import Foundation
import NetCore

/// The pipeline stage that sends one request to the network for identical GETs in flight at the
/// same time: `requestData` calls (bodies read whole into memory) with the same URL, the same
/// header fields in the same order, the same cache policy and no body. The first caller's exchange
/// is read whole into memory once, and every caller waiting for it gets the same head and bytes.
/// Everything else, streams (`requestStream`, event sources) and downloads included, passes
/// straight through to `base`.
///
/// ``NetworkClient`` adds it outside its cache when created with `sharesIdenticalGETs: true`, or
/// wrap a transport yourself: `SharedRequestsTransport(URLSessionTransport())`.
///
/// - Cancelling one caller ends that caller's call with `CancellationError`; the exchange goes on
///   for the others, and is cancelled only when every caller has left.
/// - A shared exchange has a deadline of its own: its requests' ``NetworkRequest/timeout`` (only
///   requests with the same timeout share), or `timeout` (60 s, `NetworkClient`'s default, unless
///   you pass your client's; ``NetworkClient`` passes its own), and at most `attemptTimeout`,
///   measured on `clock`. Past it every caller still waiting fails with
///   ``NetworkError/TransportFailure/timedOut(_:)`` and the next starts afresh, so callers who keep
///   arriving cannot keep a stalled exchange, started long ago, as the one they all wait for, and
///   a retry after an attempt's timeout reaches the server afresh.
/// - A shared body is held in memory: up to `maximumBodySize` bytes (256 MiB by default), or the
///   base transport's in-memory limit when that is smaller, past which every caller fails with
///   ``NetworkError/TransportFailure/responseBodyLimitExceeded(_:)``. Use it for API reads, not
///   for large downloads or long streams.
/// - Differing headers (another `Authorization`, another `Accept`) make a different request, so a
///   response is never handed to a caller with other credentials; a header that differs on every
///   call (a request ID an interceptor adds) turns sharing off for those calls.
public struct SharedRequestsTransport: Transport {
    /// The transport that reaches the network.
    public let base: any Transport
    /// The largest body a shared exchange reads into memory.
    public let maximumBodySize: Int64
    /// Where a shared read stops: `maximumBodySize`, or the base's in-memory limit when smaller.
    private let sharedReadLimit: Int64
    /// What a shared exchange's own deadline is measured on.
    private let clock: any Clock<Duration>
    /// A shared exchange's deadline when its requests have no timeout of their own.
    private let timeout: Duration
    /// The most a shared exchange may take, whatever its requests' timeout.
    private let attemptTimeout: Duration?

    private let flights = LockedBox<[FlightKey: SharedExchange]>([:])

    /// Wraps `base`. A shared exchange's deadline is its requests' timeout, or `timeout` when they
    /// have none, and at most `attemptTimeout`, measured on `clock` (a manual clock in tests): pass
    /// your client's `timeout` and `attemptTimeout` when you wrap a transport by hand.
    public init(_ base: any Transport, maximumBodySize: Int64 = 256 << 20, timeout: Duration = .seconds(60),
                attemptTimeout: Duration? = nil, clock: any Clock<Duration> = ContinuousClock()) {
        self.base = base
        self.maximumBodySize = maximumBodySize
        sharedReadLimit = min(maximumBodySize, base.responseLimits.maximumInMemoryBodySize ?? .max)
        self.timeout = timeout
        self.attemptTimeout = attemptTimeout
        self.clock = clock
    }

    /// The base transport's limits, so that a body through this stage is held to the base's
    /// in-memory limit as one that is not shared is; a shared read also stops at
    /// ``maximumBodySize`` when that is smaller.
    public var responseLimits: ResponseLimits { base.responseLimits }

    /// How many calls are waiting for a shared exchange right now (the first caller of each
    /// included), for tests and metrics.
    public var waitingCalls: Int {
        flights.withLock { flights in flights.values.reduce(0) { $0 + $1.waiting } }
    }

    /// Joins the identical GET in flight, or starts it; other requests go to `base`.
    public func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        guard request.httpMethod == .get, request.body.isNone, request.collectsBodyInMemory else {
            return try await base.exchange(request, progress: progress)
        }
        let key = FlightKey(request)
        let (flight, id) = flights.withLock { flights -> (SharedExchange, Int) in
            // A flight every caller has left is being cancelled: a new caller starts afresh.
            if let flight = flights[key], let id = flight.join() { return (flight, id) }
            let flight = start(request, key: key)
            flights[key] = flight
            return (flight, flight.join() ?? 0)
        }
        let shared = try await flight.value(id)
        var body = NetworkResponseBody(shared.body)
        body.isWithheld = shared.isWithheld  // a challenged 401 whose body URLSession kept back
        return NetworkStreamResponse(response: shared.head, body: body, originalRequest: request)
    }

    /// A flight for `request`, whose exchange runs in a task of its own, so no one caller's
    /// cancellation ends it; called with the flights locked.
    private func start(_ request: NetworkRequest, key: FlightKey) -> SharedExchange {
        let flight = SharedExchange(cancelsWhenAbandoned: true)
        let (base, limit, flights) = (self.base, sharedReadLimit, self.flights)
        let deadline = CallDeadline(request: request, timeout: timeout, clock: clock, attemptTimeout: attemptTimeout)
        flight.run(Task {
            defer {
                // Later requests start a new exchange; this one is done.
                flights.withLock { flights in if flights[key] === flight { flights[key] = nil } }
            }
            return try await deadline.run { _ in
                let response = try await base.exchange(request, progress: nil)
                let body = try await response.body.collect(upTo: limit)
                return SharedResponse(head: response.response, body: body, isWithheld: response.body.isWithheld)
            }
        })
        return flight
    }
}

/// What makes two requests the same: the URL, the header fields in order, the cache policy, and
/// the timeout (which bounds the shared exchange).
struct FlightKey: Hashable, Sendable {
    let url: String
    let headers: [String]
    let cachePolicy: NetworkCachePolicy
    let timeout: Duration?

    init(_ request: NetworkRequest) {
        url = request.url.absoluteString
        headers = request.headers.map { "\($0.name.lowercased()):\($0.value)" }
        cachePolicy = request.cachePolicy
        timeout = request.timeout
    }
}

/// One exchange and the calls waiting for it: cancelled once every caller has left.
typealias SharedExchange = SharedTaskResult<SharedResponse>

/// A shared exchange's result.
struct SharedResponse: Sendable {
    let head: NetworkResponseHead
    let body: Data
    let isWithheld: Bool
}

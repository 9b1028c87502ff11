#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
import NetCore
import NetTransport
import NIOCore
import NIOHTTP1
import NIOHTTPCompression

/// A ``Transport`` on swift-server's AsyncHTTPClient (SwiftNIO), for Linux servers and daemons
/// that should not be held back by URLSession.
///
/// One exchange per call, as every transport: bodies from memory, files and streams are streamed
/// (never a whole file in memory); the response body is read from the socket only as it is
/// consumed: once 512 KiB wait unread on the delegate API, or one body part on the async API
/// (its response body's high watermark is one part; `execute` says which API a call takes),
/// AsyncHTTPClient stops reading until the reader has caught up, so a slow reader slows the
/// server down instead of growing memory. Upload progress,
/// task cancellation, gzip/deflate decoded within ``Configuration/responseLimits``, and the same
/// typed ``NetworkError``s. Redirects, deadlines and retries are the pipeline's.
///
/// The transport owns its `HTTPClient` and its connection pool. Dropping the transport shuts the
/// client down in the background, so it can be released anywhere without a crash.
public final class AsyncHTTPClientTransport: Transport, DeadlineStoppableTransport {
    /// How the transport behaves.
    public let configuration: Configuration
    private let clients: ProxyRoutedClients
    private let relays: OriginRelays
    /// The event loop each exchange on the delegate API asks for, and which API a stream takes.
    private let affinity: LoopAffinity
    /// Whether no proxy is configured, read once here: every request would otherwise copy the
    /// proxy settings out to ask them (about 300 instructions a call; Benchmarks/NOTEBOOK.md,
    /// "Fewer async frames").
    private let connectsDirectly: Bool

    /// Creates a transport with its own client and connection pool (one pool per proxy, plus the
    /// direct one).
    ///
    /// Settings that cannot be used (a certificate or key that does not parse, a wrong
    /// passphrase, a SOCKS5 proxy with credentials) do not stop the transport from being created:
    /// every request then fails with that typed error, so nothing is sent with settings other
    /// than the ones asked for.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var settings = HTTPClient.Configuration()
        settings.redirectConfiguration = .disallow  // the pipeline follows redirects, for every transport alike
        settings.httpVersion = configuration.allowsHTTP2 ? .automatic : .http1Only  // see `allowsHTTP2`
        settings.decompression = .enabled(limit: Self.decompressionLimit(configuration.responseLimits.decompression))
        settings.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.maximumConnectionsPerHost)
        settings.connectionPool.retryConnectionEstablishment = configuration.retriesConnectionEstablishment
        settings.timeout = .init(connect: .nanoseconds(configuration.connectTimeout.wholeNanoseconds))
        // Tracing is the pipeline's (NetObservability's interceptor: a span per call and per
        // attempt, URLs redacted). AsyncHTTPClient's own would start a second span per exchange
        // with the URL's query unredacted (and inject its context on its async API), and with no
        // tracer bootstrapped it still built each request's span attributes.
        settings.tracing.tracer = nil
        clients = ProxyRoutedClients(settings: settings, tls: configuration.tls, proxies: configuration.proxy)
        relays = OriginRelays(tls: configuration.tls, proxies: configuration.proxy, connectTimeout: configuration.connectTimeout)
        affinity = LoopAffinity(group: ProxyRoutedClients.loops)
        connectsDirectly = configuration.proxy.connectsDirectly
    }

    deinit {
        // AsyncHTTPClient traps on a client released without a shutdown; the callback form needs no
        // `await`, and no request can be running once the transport (which every send holds) is gone.
        clients.shutdown()
        relays.shutdown()
    }

    /// Sends `request` and returns as soon as its response head arrives.
    ///
    /// A connection the pool handed out just as the server closed it fails before anything is
    /// sent; an idempotent request is then sent once more, on a new connection, as libcurl does.
    ///
    /// The work that does not wait is in synchronous helpers: an async function keeps its
    /// temporaries in a frame allocated from the task, and each frame over about 1 KB is a
    /// `malloc` of its own (in an attempt's new task, every time; Benchmarks/NOTEBOOK.md, "Async frames under the slab").
    ///
    /// In an attempt run in its caller's task (``stopsExchangesOnDeadline(_:)``), the exchange is
    /// attached to the deadline's alarm before it first waits, and no request is sent again once
    /// the deadline has passed.
    ///
    /// `start` and `execute` are inlined into it (each async frame costs a task allocation and
    /// two executor checks; Benchmarks/NOTEBOOK.md, "Fewer async frames"); the compiler does not
    /// inline it into its protocol witness, so an exchange takes one frame below the witness.
    public func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        try request.validate()
        try Task.checkCancellation()
        let proxy = connectsDirectly ? nil : configuration.proxy.proxy(for: request.url)
        // Most requests have no relay to wait for: no pinned host, no SOCKS5 proxy with credentials.
        guard !relays.mayRelay(through: proxy) else { return try await relayedExchange(request, proxy: proxy, progress: progress) }
        return try finished(request, try await start(request, via: nil, proxy: proxy, progress: progress))
    }

    /// ``exchange(_:progress:)`` for a request that may connect through a relay: out of line, so
    /// that the common path's frame does not hold the relay's lease and wait.
    @inline(never)
    private func relayedExchange(_ request: NetworkRequest, proxy: NetworkProxy?,
                                 progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        let relay = try await relays.relay(for: request.url, proxy: proxy)
        // Leased until the head or the failure: a relay is not closed while a request connects through it.
        defer { if let relay { relays.release(relay) } }
        return try finished(request, try await start(request, via: relay, proxy: proxy, progress: progress))
    }

    /// The response handed to the pipeline, once `request` has `started`; refused if its body is in
    /// a coding the transport did not decode (the failure drops the body, which closes its
    /// connection).
    private func finished(_ request: NetworkRequest, _ started: Started) throws -> NetworkStreamResponse {
        let response = Self.response(to: request, started: started, limits: configuration.responseLimits, affinity: affinity)
        try ContentCodingCheck.refuseUndecoded(response, of: request)
        return response
    }

    /// What `execute` returns: the head's parts, and where the body comes from.
    private typealias Started = (status: HTTPResponseStatus, version: HTTPVersion, headers: HTTPHeaders,
                                 source: ResponseChunks.Source)

    /// Sends `request` on the client for its route, once more on a stale pooled connection, and
    /// maps what failed to a ``NetworkError``. Inlined into `exchange`, as `execute` is into it.
    @inline(__always)
    private func start(_ request: NetworkRequest, via relay: OriginRelay?, proxy: NetworkProxy?,
                       progress: TransportProgressHandler?) async throws -> Started {
        let client = try client(via: relay, proxy: proxy)
        let failuresBefore = relay?.failures.count ?? 0
        let scope = ExchangeScope.current  // read once: a task-local read is a runtime call
        do {
            var resent = false  // sent at most twice
            while true {
                do {
                    return try await execute(request, on: client, via: relay, progress: progress, scope: scope)
                } catch where !resent && ErrorMapping.isStaleConnection(error) && request.httpMethod.isIdempotent {
                    resent = true
                    try Task.checkCancellation()
                    try scope?.checkDeadline()
                }
            }
        } catch {
            throw failure(error, of: request, via: relay, failuresBefore: failuresBefore, proxy: proxy)
        }
    }

    /// The client that sends a request to `proxy` or `relay`. A function of its own: its typed
    /// error is large, and would take room in the caller's async frame.
    @inline(never)
    private func client(via relay: OriginRelay?, proxy: NetworkProxy?) throws -> HTTPClient {
        // A relay makes the connection, through the proxy if any: AsyncHTTPClient connects directly to it.
        try clients.client(for: relay == nil ? proxy : nil)
    }

    /// The error a failed exchange throws. What the relay saw (a pin mismatch, a refused
    /// certificate) says more than the closed connection AsyncHTTPClient saw; a call given up ends
    /// as cancelled, whatever another call's relay connection saw meanwhile.
    @inline(never)  // the mapped error's temporaries stay out of `exchange`'s async frame (`start` is inlined there)
    private func failure(_ error: any Error, of request: NetworkRequest, via relay: OriginRelay?,
                         failuresBefore: Int, proxy: NetworkProxy?) -> any Error {
        let mapped = ErrorMapping.networkError(for: error, request: request, limits: configuration.responseLimits, proxy: proxy)
        // The caller's own ending (a cancellation, the request body's own error) is why it ended.
        if mapped is CancellationError || error is RequestBodySourceFailure { return mapped }
        return relay?.failures.failure(since: failuresBefore) ?? mapped
    }

    /// The response handed to the pipeline: the head converted, the body to be pulled.
    @inline(never)  // see `outgoing`
    private static func response(to request: NetworkRequest, started: Started, limits: ResponseLimits,
                                 affinity: LoopAffinity) -> NetworkStreamResponse {
        let headers = ReceivedFields.headers(started.headers, version: started.version)
        let head = NetworkResponseHead(statusCode: HTTPCode(Int(started.status.code)), headers: headers, url: request.url)
        let body: NetworkResponseBody
        switch started.source {
        case .exchange(let exchange):
            if let whole = exchange.takeWholeBody() {
                body = NetworkResponseBody(whole)  // most small bodies: no sequence, no lease to allocate
            } else {
                body = NetworkResponseBody(ResponseChunks(source: started.source, request: request, limits: limits)) {
                    exchange.readerDone()
                }
            }
        case .body:
            // AsyncHTTPClient's own body cancels when dropped; the exchange counted in `outgoing` ends with it.
            body = NetworkResponseBody(ResponseChunks(source: started.source, request: request, limits: limits)) {
                affinity.ended(.other)
            }
        }
        return NetworkStreamResponse(response: head, body: body, originalRequest: request)
    }

    /// Exchanges on either of AsyncHTTPClient's APIs started and not yet ended (`LoopAffinity`).
    package var exchangesInFlight: Int { affinity.exchangesInFlight }

    /// The directory this transport's relays put their sockets in (it exists once a relay has
    /// started).
    package var relayDirectory: String { relays.directory }

    /// How many relays are open or starting now; at most ``maximumRelayCount`` (tests).
    package var relayCount: Int { relays.count }

    /// The most relays a transport keeps open at once (tests).
    package static var maximumRelayCount: Int { OriginRelays.maximumRelays }

    /// ``exchangesInFlight`` by `LoopAffinity`'s count: each 0 once every exchange has ended.
    package var exchangesInFlightByCount: (readWhole: Int, other: Int) { affinity.exchangesInFlightByCount }

    /// How many exchanges on AsyncHTTPClient's delegate API so far asked for the home event loop.
    package var exchangesSentHome: Int { affinity.exchangesSentHome }

    /// The response limits from ``Configuration/responseLimits``.
    public var responseLimits: ResponseLimits { configuration.responseLimits }

    /// A call that reads its body whole into memory with no request body or one sent whole, where
    /// no request waits for a relay: every exchange of its attempts is an ``ExchangeDelegate``,
    /// which stops on the deadline by itself (`execute`). A redirect keeps the call's kind and at
    /// most drops the body.
    package func stopsExchangesOnDeadline(_ request: NetworkRequest) -> Bool {
        Self.readsWholeOnDelegateAPI(request) && relays.neverRelays
    }

    /// A call that reads its body whole into memory, with no request body or one sent whole: always
    /// on the delegate API (`execute`).
    static func readsWholeOnDelegateAPI(_ request: NetworkRequest) -> Bool {
        request.collectsBodyInMemory && UploadChunks.sentWhole(request.body)
    }

    /// Starts the request and waits for its head; cancelling the task cancels the request.
    ///
    /// A request with no body or one sent whole goes through ``ExchangeDelegate`` (no per-request
    /// deadline task on an event loop) when its call reads the body whole into memory
    /// (`requestData`), or reads it as it arrives (`requestStream`, and the session's read of an
    /// upload's answer) while no other exchange of the transport is in flight: such an exchange
    /// asks for the home loop (``LoopAffinity/startingStream()``), where calls made one after
    /// another keep their connection, so the body's parts do not cross between event loops.
    /// Beside another exchange, where the pool would hand out a connection on any loop and a large
    /// body's every part could cross (measured: half the speed), a body read as it arrives goes
    /// through AsyncHTTPClient's async API. So does a download to a file, whose body is large by
    /// intent: the delegate API costs less per request but more per body part (its generic
    /// `RequestBag` looks up its metadata at each step): 3 to 7 % more CPU for a 1 GiB body. And
    /// so does a request body pulled in chunks: there the response can end while the upload goes
    /// on, and the upload stops when the request is cancelled or the server answers early.
    /// Inlined into `start`: one async frame fewer (Benchmarks/NOTEBOOK.md, "Fewer async frames");
    /// what it builds and does not wait for is in `outgoing`, out of line.
    @inline(__always)
    private func execute(_ request: NetworkRequest, on client: HTTPClient, via relay: OriginRelay?,
                         progress: TransportProgressHandler?, scope: ExchangeScope?) async throws -> Started {
        switch try Self.outgoing(request, on: client, via: relay, progress: progress, record: scope?.record, affinity: affinity) {
        case .streamed(let outgoing):
            do {
                return try await Self.executeStreamed(outgoing, on: client)
            } catch {
                affinity.ended(.other)  // no body to end it
                throw error
            }
        case .delegated(let exchange):
            scope?.attach(exchange)  // before the first wait: the deadline stops it if it runs inline
            let head = try await withTaskCancellationHandler {
                try await exchange.head()
            } onCancel: {
                exchange.cancel()
            }
            return (head.status, head.version, head.headers, .exchange(exchange))
        }
    }

    /// Sends `outgoing` on the async API. A function of its own, handed the box: the request and
    /// the response are large values, and in `execute` (inlined into `start`) they would grow the
    /// frame of every exchange.
    @inline(never)
    private static func executeStreamed(_ outgoing: PendingRequest, on client: HTTPClient) async throws -> Started {
        // The pipeline's deadline cancels the call; AsyncHTTPClient's own would end at the head.
        let response = try await client.execute(outgoing.request, deadline: .distantFuture)
        return (response.status, response.version, response.headers, .body(response.body))
    }

    /// The request target: the percent-encoded path (`/` when empty) and query, as sent.
    static func target(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        let query = url.query(percentEncoded: true).map { "?\($0)" } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }

    /// `host[:port]` as the `Host` header carries it (the port only when not the scheme's default).
    static func authority(of url: URL) -> String {
        let host = url.host(percentEncoded: true) ?? ""
        let bracketed = host.contains(":") ? "[\(host)]" : host
        guard let port = url.port, port != (url.scheme?.lowercased() == "https" ? 443 : 80) else { return bracketed }
        return "\(bracketed):\(port)"
    }

    static func decompressionLimit(_ limit: ResponseLimits.DecompressionLimit) -> NIOHTTPDecompression.DecompressionLimit {
        switch limit {
        // SwiftNIO multiplies the ratio by the compressed bytes so far without an overflow
        // check: at 2²⁰ that holds past 8 TiB received.
        case .ratio(let ratio): .ratio(min(max(1, ratio), 1 << 20))
        case .size(let bytes): .size(Int(clamping: bytes))
        case .none: .none
        }
    }
}
#endif

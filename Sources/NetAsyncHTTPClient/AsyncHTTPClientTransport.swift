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
/// consumed: once a few chunks wait unread (256 KiB for a body read whole into memory),
/// AsyncHTTPClient stops reading until the reader has caught up, so a slow reader slows the
/// server down instead of growing memory. Upload progress,
/// task cancellation, gzip/deflate decoded within ``Configuration/responseLimits``, and the same
/// typed ``NetworkError``s. Redirects, deadlines and retries are the pipeline's.
///
/// The transport owns its `HTTPClient` and its connection pool. Dropping the transport shuts the
/// client down in the background, so it can be released anywhere without a crash.
public final class AsyncHTTPClientTransport: Transport {
    /// How the transport behaves.
    public let configuration: Configuration
    private let clients: ProxyRoutedClients
    private let relays: OriginRelays

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
    public func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        try request.validate()
        try Task.checkCancellation()
        let limits = configuration.responseLimits
        let proxy = configuration.proxy.proxy(for: request.url)
        let relay = try await relays.relay(for: request.url, proxy: proxy)
        // A relay makes the connection, through the proxy if any: AsyncHTTPClient connects directly to it.
        let client = try clients.client(for: relay == nil ? proxy : nil)
        let failuresBefore = relay?.failures.count ?? 0
        let record = ExchangeMetricsRecorder.current
        let started: (status: HTTPResponseStatus, headers: HTTPHeaders, source: ResponseChunks.Source)
        do {
            do {
                started = try await execute(request, on: client, via: relay, progress: progress, record: record)
            } catch where ErrorMapping.isStaleConnection(error) && request.httpMethod.isIdempotent {
                started = try await execute(request, on: client, via: relay, progress: progress, record: record)
            }
        } catch {
            // What the relay saw (a pin mismatch, a refused certificate) says more than the
            // closed connection AsyncHTTPClient saw.
            if let failure = relay?.failures.failure(since: failuresBefore) { throw failure }
            throw ErrorMapping.networkError(for: error, request: request, limits: limits, proxy: proxy)
        }
        var headers = NetworkHeaders()
        headers.reserveCapacity(started.headers.count)
        for (name, value) in started.headers { try? headers.add(name: name, value: value) }
        let head = NetworkResponseHead(statusCode: HTTPCode(Int(started.status.code)), headers: headers, url: request.url)
        let chunks = ResponseChunks(source: started.source, request: request, limits: limits)
        let body: NetworkResponseBody
        if case .exchange(let exchange) = started.source {
            body = NetworkResponseBody(chunks) { exchange.readerDone() }
        } else {
            body = NetworkResponseBody(chunks)  // AsyncHTTPClient's own body cancels when dropped
        }
        return NetworkStreamResponse(response: head, body: body, originalRequest: request)
    }

    /// The response limits from ``Configuration/responseLimits``.
    public var responseLimits: ResponseLimits { configuration.responseLimits }

    /// Starts the request and waits for its head; cancelling the task cancels the request.
    ///
    /// A call that reads its body whole into memory (`requestData`), with no request body or one
    /// sent whole, goes through ``ExchangeDelegate`` (no per-request deadline task on an event
    /// loop). Every other request goes through AsyncHTTPClient's async API: a request body pulled
    /// in chunks, because there the response can end while the upload goes on and the upload
    /// stops when the request is cancelled or the server answers early; and a body read as it
    /// arrives (streams, downloads), because the delegate API calls its delegate on an event loop
    /// chosen before the connection, so half the body's parts crossed between two event loops
    /// and large bodies came at half the speed.
    private func execute(_ request: NetworkRequest, on client: HTTPClient, via relay: OriginRelay?,
                         progress: TransportProgressHandler?, record: ExchangeMetricsRecorder?)
    async throws -> (status: HTTPResponseStatus, headers: HTTPHeaders, source: ResponseChunks.Source) {
        var url = request.url
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 1)
        for header in request.headers { headers.add(name: header.name, value: header.value) }
        if let relay {
            // Plain HTTP to the relay's socket, which holds the pinned TLS connection.
            url = URL(httpURLWithSocketPath: relay.socketPath, uri: Self.target(of: request.url)) ?? url
            if !headers.contains(name: "Host") { headers.add(name: "Host", value: Self.authority(of: request.url)) }
        }
        let readsWhole = request.collectsBodyInMemory
        let upload = try UploadChunks.body(for: request.body, whole: readsWhole, progress: progress, record: record,
                                           loops: client.eventLoopGroup)
        if !readsWhole || upload.streamed != nil {  // the async API (see above)
            var outgoing = HTTPClientRequest(url: url.absoluteString)
            outgoing.method = HTTPMethod(rawValue: request.httpMethod.rawValue)
            outgoing.headers = headers
            outgoing.body = upload.streamed
            // The pipeline's deadline cancels the call; AsyncHTTPClient's own would end at the head.
            let response = try await client.execute(outgoing, deadline: .distantFuture)
            return (response.status, response.headers, .body(response.body))
        }
        let exchange = ExchangeDelegate(record: record, sentWhole: upload.sentWhole)
        let outgoing = try HTTPClient.Request(url: url, method: HTTPMethod(rawValue: request.httpMethod.rawValue),
                                              headers: headers, body: upload.whole)
        // No deadline: the pipeline's cancels the request (AsyncHTTPClient's would cost two
        // hand-offs to the event loop per request, and end at the head).
        exchange.attach(client.execute(request: outgoing, delegate: exchange, eventLoop: .indifferent, deadline: nil))
        let head = try await withTaskCancellationHandler {
            try await exchange.head()
        } onCancel: {
            exchange.cancel()
        }
        return (head.status, head.headers, .exchange(exchange))
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
        case .ratio(let ratio): .ratio(max(1, ratio))
        case .size(let bytes): .size(Int(clamping: bytes))
        case .none: .none
        }
    }
}

/// AsyncHTTPClient's body as `Data` chunks, its errors mapped to ``NetworkError``.
struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    /// Where the parts come from: the delegate's exchange, or AsyncHTTPClient's body stream.
    enum Source: Sendable {
        case exchange(ExchangeDelegate)
        case body(HTTPClientResponse.Body)
    }

    let source: Source
    let request: NetworkRequest
    let limits: ResponseLimits

    func makeAsyncIterator() -> Iterator {
        switch source {
        case .exchange(let exchange): Iterator(parts: .exchange(exchange), request: request, limits: limits)
        case .body(let body): Iterator(parts: .body(body.makeAsyncIterator()), request: request, limits: limits)
        }
    }

    /// The chunk's bytes as `Data`, without copying them when the chunk is large: the `Data` holds
    /// a reference to the buffer's storage until it is released (SwiftNIO's documented way to keep
    /// its bytes past the closure), and SwiftNIO never writes into storage referenced twice. A
    /// 1 GiB stream spent a third of its CPU copying before. Small chunks are copied, which costs
    /// less than the shared storage's bookkeeping.
    static func data(sharing buffer: ByteBuffer) -> Data {
        guard buffer.readableBytes >= 16 << 10 else { return buffer.withUnsafeReadableBytes { Data($0) } }
        return buffer.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
            guard let base = bytes.baseAddress else { return Data() }
            let owner = storage.retain()  // released once, when the `Data` lets go of the bytes
            return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count,
                        deallocator: .custom { _, _ in owner.release() })
        }
    }

    struct Iterator: AsyncIteratorProtocol {
        enum Parts {
            case exchange(ExchangeDelegate)
            case body(HTTPClientResponse.Body.AsyncIterator)
        }

        var parts: Parts
        let request: NetworkRequest
        let limits: ResponseLimits

        mutating func next() async throws -> Data? {
            do {
                let buffer: ByteBuffer?
                switch parts {
                case .exchange(let exchange):
                    buffer = try await exchange.nextPart()
                case .body(var iterator):
                    buffer = try await iterator.next()
                    parts = .body(iterator)
                }
                return buffer.map(ResponseChunks.data(sharing:))
            } catch {
                throw ErrorMapping.networkError(for: error, request: request, limits: limits)
            }
        }
    }
}

extension AsyncHTTPClientTransport {
    /// How an ``AsyncHTTPClientTransport`` behaves.
    public struct Configuration: Sendable {
        /// Connections the pool keeps open to one host. Eight by default.
        public var maximumConnectionsPerHost: Int
        /// How long establishing a connection may take. Ten seconds by default.
        public var connectTimeout: Duration
        /// Whether AsyncHTTPClient keeps retrying a connection that cannot be established, with
        /// backoff, until ``connectTimeout``. Off by default: a refused connection fails at once as
        /// with `URLSessionTransport`, and `RetryPolicy` decides about retrying at the session layer.
        public var retriesConnectionEstablishment: Bool
        /// How large a response body may grow (decompression bombs, bodies held in memory).
        /// ``ResponseLimits/init(maximumInMemoryBodySize:decompression:)``'s defaults by default; the
        /// ratio is SwiftNIO's, counted against the compressed bytes received so far.
        public var responseLimits: ResponseLimits
        /// Trusted roots, client certificate, public-key pins and the lowest TLS version.
        /// ``TLSSettings/default`` (the system's roots, TLS 1.2 or later) by default.
        public var tls: TLSSettings
        /// The proxies requests go through. ``ProxyConfiguration/direct`` by default: the
        /// environment's `HTTPS_PROXY` and kin are read only when you pass
        /// ``ProxyConfiguration/environment(_:)``.
        ///
        /// An HTTP proxy carries `https://` *and* `http://` requests in a `CONNECT` tunnel
        /// (AsyncHTTPClient has no absolute-form requests), so the proxy must allow `CONNECT` to
        /// the origin's port. A SOCKS5 proxy gets the origin's host name (curl's `socks5h`), with
        /// the username/password method when it has credentials.
        public var proxy: ProxyConfiguration

        /// Creates a configuration; every parameter has the default described on its property.
        public init(maximumConnectionsPerHost: Int = 8, connectTimeout: Duration = .seconds(10),
                    retriesConnectionEstablishment: Bool = false, responseLimits: ResponseLimits = ResponseLimits(),
                    tls: TLSSettings = .default, proxy: ProxyConfiguration = .direct) {
            self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
            self.connectTimeout = connectTimeout
            self.retriesConnectionEstablishment = retriesConnectionEstablishment
            self.responseLimits = responseLimits
            self.tls = tls
            self.proxy = proxy
        }
    }
}
#endif

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
/// Same semantics as `URLSessionTransport`: bodies from memory, files and streams are streamed
/// (never a whole file in memory); responses go to memory or straight to a file; upload and
/// download progress; task cancellation; the request's timeout as a deadline for the whole
/// exchange; redirects followed by Net's ``RedirectRule`` (307/308 resend method and body);
/// gzip/deflate decoded; the same typed ``NetworkError``s.
///
/// The transport owns its `HTTPClient` and its connection pool. Dropping the transport shuts the
/// client down in the background, so it can be released anywhere without a crash.
public final class AsyncHTTPClientTransport: Transport {
    /// How the transport behaves.
    public let configuration: Configuration
    private let client: HTTPClient

    /// Creates a transport with its own client and connection pool.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var settings = HTTPClient.Configuration()
        settings.redirectConfiguration = .disallow  // Net follows redirects itself, like URLSessionTransport
        settings.decompression = .enabled(limit: Self.decompressionLimit(configuration.responseLimits.decompression))
        settings.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.maximumConnectionsPerHost)
        settings.connectionPool.retryConnectionEstablishment = configuration.retriesConnectionEstablishment
        settings.timeout = .init(connect: .nanoseconds(Self.nanoseconds(configuration.connectTimeout)))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
    }

    deinit {
        // AsyncHTTPClient traps on a client released without a shutdown; the callback form needs no
        // `await`, and no request can be running once the transport (which every send holds) is gone.
        client.shutdown { _ in }
    }

    /// Sends `request`, following redirects as ``Configuration/redirectPolicy`` says.
    public func send(_ request: NetworkRequest, to destination: TransportBodyDestination, progress: TransportProgressHandler?) async throws -> TransportResponse {
        try request.validate()
        try Task.checkCancellation()
        let deadline = ContinuousClock.now + (request.timeout ?? configuration.timeout)
        var current = request
        if !current.body.isNone, !current.headers.contains(name: "Content-Type") {
            try current.headers.set(name: "Content-Type", value: "application/octet-stream")
        }
        var redirectCount = 0
        while true {
            let response = try await exchangeWithinDeadline(current, to: destination, deadline: deadline, progress: progress)
            guard case .follow(let limit) = configuration.redirectPolicy,
                let next = try RedirectRule.nextRequest(after: response, for: current)
            else { return response }
            guard redirectCount < limit else {
                throw NetworkError.transport(.tooManyRedirects(limit: limit, lastURL: next.redactedURL))
            }
            redirectCount += 1
            current = next
        }
    }

    /// AsyncHTTPClient's deadline ends at the response head; a server that stalls or trickles
    /// the body would hold the request for ever. Racing the exchange against the deadline makes
    /// it cover the whole exchange, as with URLSessionTransport. A connection the pool handed out
    /// just as the server closed it fails before anything is sent; an idempotent request is then
    /// sent once more, on a new connection, as libcurl does.
    private func exchangeWithinDeadline(_ request: NetworkRequest, to destination: TransportBodyDestination, deadline: ContinuousClock.Instant, progress: TransportProgressHandler?) async throws -> TransportResponse {
        try await withThrowingTaskGroup(of: TransportResponse?.self) { group in
            group.addTask {
                do {
                    do {
                        return try await self.exchange(request, to: destination, deadline: deadline, progress: progress)
                    } catch where ErrorMapping.isStaleConnection(error) && request.httpMethod.isIdempotent {
                        return try await self.exchange(request, to: destination, deadline: deadline, progress: progress)
                    }
                } catch {
                    throw ErrorMapping.networkError(for: error, request: request, limits: self.configuration.responseLimits, deadlinePassed: ContinuousClock.now >= deadline)
                }
            }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else { throw Self.timedOut(request) }
            return response
        }
    }

    /// One exchange; AsyncHTTPClient's and NIO's errors come out as they are, for the caller to map.
    private func exchange(_ request: NetworkRequest, to destination: TransportBodyDestination, deadline: ContinuousClock.Instant, progress: TransportProgressHandler?) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.httpMethod.rawValue)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        outgoing.body = try UploadChunks.body(for: request.body, progress: progress)
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { throw Self.timedOut(request) }
        let nioDeadline = NIODeadline.now() + .nanoseconds(Self.nanoseconds(remaining))
        let response = try await client.execute(outgoing, deadline: nioDeadline)
        var headers = NetworkHeaders()
        for (name, value) in response.headers { try? headers.add(name: name, value: value) }
        let head = NetworkResponseHead(statusCode: HTTPCode(Int(response.status.code)), headers: headers, url: request.url)
        return try await ResponseBodyReader.read(response.body, head: head, method: request.httpMethod, to: destination, limits: configuration.responseLimits, progress: progress)
    }

    static func timedOut(_ request: NetworkRequest) -> NetworkError {
        .transport(.timedOut("no complete response within \(request.timeout.map { "\($0)" } ?? "the default timeout") (\(request))"))
    }

    static func decompressionLimit(_ limit: ResponseLimits.DecompressionLimit) -> NIOHTTPDecompression.DecompressionLimit {
        switch limit {
        case .ratio(let ratio): .ratio(max(1, ratio))
        case .size(let bytes): .size(Int(clamping: bytes))
        case .none: .none
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow ? .max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension AsyncHTTPClientTransport {
    /// How an ``AsyncHTTPClientTransport`` behaves.
    public struct Configuration: Sendable {
        /// The limit for a whole exchange (redirects included) when a request sets no timeout. 60 s by default.
        public var timeout: Duration
        /// Whether and how far redirects are followed. `.follow(limit: 10)` by default.
        public var redirectPolicy: RedirectPolicy
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

        /// Creates a configuration; every parameter has the default described on its property.
        public init(timeout: Duration = .seconds(60), redirectPolicy: RedirectPolicy = .follow(limit: 10),
                    maximumConnectionsPerHost: Int = 8, connectTimeout: Duration = .seconds(10),
                    retriesConnectionEstablishment: Bool = false, responseLimits: ResponseLimits = ResponseLimits()) {
            self.timeout = timeout
            self.redirectPolicy = redirectPolicy
            self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
            self.connectTimeout = connectTimeout
            self.retriesConnectionEstablishment = retriesConnectionEstablishment
            self.responseLimits = responseLimits
        }
    }

    /// Whether a transport follows redirects.
    public enum RedirectPolicy: Sendable, Hashable {
        /// Follow up to `limit` redirects; one more is ``NetworkError/TransportFailure/tooManyRedirects(limit:lastURL:)``.
        case follow(limit: Int)
        /// Return 3xx responses to the caller as they are.
        case doNotFollow
    }
}
#endif

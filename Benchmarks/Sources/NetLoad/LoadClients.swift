import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import Net
import NetAsyncHTTPClient
import NIOCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The clients NetLoad drives, configured alike: 64 connections per host, redirects not
/// followed, no cookies or cache, a 60 s limit, bodies decoded within the same decompression
/// limit (AsyncHTTPClient) or as libcurl does (URLSession). The limit is on the whole call for
/// `raw-ahc-whole-call` and Net's calls read whole (`get`); AsyncHTTPClient's async API (`raw-ahc`)
/// ends its own when the head arrives, as does Net's `requestStream` (`stream`), and raw
/// URLSession's is libcurl's idle limit.
enum LoadClient: String {
    case rawAHC = "raw-ahc"
    /// Raw AsyncHTTPClient with its 60 s limit on the whole call, body included: its
    /// `EventLoopFuture` API (`execute(request:deadline:)`, the body collected by its
    /// `ResponseAccumulator`, whose body limit is its own rather than `raw-ahc`'s 256 MiB: neither is
    /// reached by a small GET), awaited with `get()`. `raw-ahc`'s async API ends its limit at the head.
    case rawAHCWholeCall = "raw-ahc-whole-call"
    case netAHC = "net-ahc"
    /// Net's AsyncHTTPClientTransport alone (one exchange, body collected), and with
    /// `Transport.send` (deadline, redirects, framing, collection): where a session's cost goes.
    /// A bare exchange is not marked as read whole into memory (only Net's own calls can mark it),
    /// so it takes AsyncHTTPClient's async API, where `send` and the session's calls take the
    /// delegate API.
    case netAHCExchange = "net-ahc-exchange"
    case netAHCSend = "net-ahc-send"
    /// `NetworkClient` with no interceptors (no actor visits), where `net-ahc` is a session actor
    /// with the protocol's defaults (which visit it for its settings and both interceptions).
    case netAHCClient = "net-ahc-client"
    case rawURLSession = "raw-urlsession"
    /// Raw URLSession through a session delegate that collects the body (see DelegateReader).
    case rawURLSessionDelegate = "raw-urlsession-delegate"
    case netURLSession = "net-urlsession"
    case netURLSessionClient = "net-urlsession-client"

    static let pool = 64

    static let ahc = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .likeNetsTransport(connectionsPerHost: pool))

    static let urlSession = URLSession(configuration: urlSessionConfiguration, delegate: NoRedirects(), delegateQueue: nil)
    static let collectingDelegate = DelegateReader(collects: true)
    static let delegateURLSession = URLSession(configuration: urlSessionConfiguration, delegate: collectingDelegate, delegateQueue: nil)

    static var urlSessionConfiguration: URLSessionConfiguration { .likeNetsTransport(connectionsPerHost: pool) }

    static let netAHCTransport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: pool))
    static let netAHCSession = BareSession(transport: netAHCTransport)
    static let netURLSessionTransport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: pool))
    static let netURLSessionSession = BareSession(transport: netURLSessionTransport)
    static let ahcNetworkClient = NetworkClient(transport: netAHCTransport)
    static let urlSessionNetworkClient = NetworkClient(transport: netURLSessionTransport)

    /// Raw AsyncHTTPClient's GET of `url` with a 60 s limit that ends once the head has arrived (the
    /// async API cancels its deadline then), its body still to be read.
    static func rawAHCGet(_ url: URL) async throws -> HTTPClientResponse {
        try await ahc.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
    }

    /// GETs `url` into memory and returns the body's length.
    func get(_ url: URL) async throws -> Int {
        switch self {
        case .rawAHC:
            let response = try await Self.rawAHCGet(url)
            return try await response.body.collect(upTo: 256 << 20).readableBytes
        case .rawAHCWholeCall:
            let request = try HTTPClient.Request(url: url)
            let deadline = NIODeadline.now() + TimeAmount.seconds(60)
            let future: EventLoopFuture<HTTPClient.Response> = Self.ahc.execute(request: request, deadline: deadline)
            let response = try await future.get()
            return response.body?.readableBytes ?? 0
        case .netAHC:
            return try await Self.netAHCSession.requestData(for: url).data.count
        case .netAHCClient:
            return try await Self.ahcNetworkClient.requestData(for: url).data.count
        case .netAHCExchange:
            return try await Self.netAHCTransport.exchange(NetworkRequest(url: url), progress: nil).body.collect().count
        case .netAHCSend:
            return try await Self.netAHCTransport.send(NetworkRequest(url: url)).body.count
        case .rawURLSession:
            var request = URLRequest(url: url)
            request.timeoutInterval = 60
            return try await Self.urlSession.data(for: request).0.count
        case .rawURLSessionDelegate:
            var request = URLRequest(url: url)
            request.timeoutInterval = 60
            return try await Self.collectingDelegate.read(Self.delegateURLSession.dataTask(with: request))
        case .netURLSession:
            return try await Self.netURLSessionSession.requestData(for: url).data.count
        case .netURLSessionClient:
            return try await Self.urlSessionNetworkClient.requestData(for: url).data.count
        }
    }
}

/// The streamed small GETs (`seqstream`). Small GETs keep `get`'s switch: a call through an
/// existential session would not be the call a user's code makes.
extension LoadClient {
    /// Net's session or client for this case; `nil` for the raw clients.
    private var netSession: (any NetworkSession)? {
        switch self {
        case .netURLSession: Self.netURLSessionSession
        case .netURLSessionClient: Self.urlSessionNetworkClient
        case .netAHC: Self.netAHCSession
        case .netAHCClient: Self.ahcNetworkClient
        default: nil
        }
    }

    /// GETs `url` with `requestStream` (the net-* sessions and clients; raw AsyncHTTPClient: its
    /// response body iterated) and returns the number of bytes read, chunk by chunk, as they arrive.
    func stream(_ url: URL) async throws -> Int {
        if self == .rawAHC {
            let response = try await Self.rawAHCGet(url)
            var received = 0
            for try await chunk in response.body { received += chunk.readableBytes }
            return received
        }
        guard let session = netSession else { throw NetworkError.transport(.other("\(rawValue) has no stream workload")) }
        let response = try await session.requestStream(for: url)
        var received = 0
        for try await chunk in response.body { received += chunk.count }
        return received
    }
}

/// The session layer alone, without a network: `canned` (a session on a transport that returns
/// one response), `canned-client` (NetworkClient, no interceptors, on that transport),
/// `canned-stream` (the same client, `requestStream` with its body read to the end), `canned-observed`
/// (`canned-client` with `ObservabilityInterceptor` on no-op backends, as package-benchmark's §10),
/// `canned-observed-system` (the same with no factory given: `MetricsSystem`'s, read per call),
/// `canned-traced` (the same with a tracer that is not the no-op one, whose spans do not record),
/// `stub` (on StubTransport), `client` (NetworkClient with RetryPolicy on the stub).
struct SessionScenario {
    let send: @Sendable () async throws -> Void

    init?(_ kind: String) throws {
        let request = try NetworkRequest(url: "https://api.example.com/items")
        switch kind {
        case "canned":
            let session = BareSession(transport: try CannedTransport())
            send = { _ = try await session.requestData(for: request) }
        case "canned-client":
            let client = NetworkClient(transport: try CannedTransport())
            send = { _ = try await client.requestData(for: request) }
        case "canned-stream":
            let client = NetworkClient(transport: try CannedTransport())
            send = {
                let response = try await client.requestStream(for: request)
                for try await _ in response.body {}
            }
        case "canned-observed", "canned-observed-system", "canned-traced":
            let client = try ObservedClient.make(traced: kind == "canned-traced", factoryGiven: kind != "canned-observed-system")
            send = { _ = try await client.requestData(for: request) }
        case "stub":
            let session = BareSession(transport: StubTransport { _ in .text("ok") })
            send = { _ = try await session.requestData(for: request) }
        case "client":
            let client = NetworkClient(transport: StubTransport { _ in .text("ok") }, interceptors: [RetryPolicy()])
            send = { _ = try await client.requestData(for: request) }
        default:
            return nil
        }
    }
}

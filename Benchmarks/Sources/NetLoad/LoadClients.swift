import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import Net
import NetAsyncHTTPClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The clients NetLoad drives, configured alike: 64 connections per host, redirects not
/// followed, no cookies or cache, a 60 s limit per call, bodies decoded within the same
/// decompression limit (AsyncHTTPClient) or as libcurl does (URLSession).
enum LoadClient: String {
    case rawAHC = "raw-ahc"
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
    /// Raw URLSession through a session delegate that collects the body (see CollectingDelegate).
    case rawURLSessionDelegate = "raw-urlsession-delegate"
    case netURLSession = "net-urlsession"
    case netURLSessionClient = "net-urlsession-client"

    static let pool = 64

    static let ahc = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .likeNetsTransport(connectionsPerHost: pool))

    static let urlSession = URLSession(configuration: urlSessionConfiguration, delegate: NoRedirects(), delegateQueue: nil)
    static let collectingDelegate = CollectingDelegate()
    static let delegateURLSession = URLSession(configuration: urlSessionConfiguration, delegate: collectingDelegate, delegateQueue: nil)

    static var urlSessionConfiguration: URLSessionConfiguration { .likeNetsTransport(connectionsPerHost: pool) }

    static let netAHCTransport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: pool))
    static let netAHCSession = BareSession(transport: netAHCTransport)
    static let netURLSessionTransport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: pool))
    static let netURLSessionSession = BareSession(transport: netURLSessionTransport)
    static let ahcNetworkClient = NetworkClient(transport: netAHCTransport)
    static let urlSessionNetworkClient = NetworkClient(transport: netURLSessionTransport)

    /// GETs `url` into memory and returns the body's length.
    func get(_ url: URL) async throws -> Int {
        switch self {
        case .rawAHC:
            let response = try await Self.ahc.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
            return try await response.body.collect(upTo: 256 << 20).readableBytes
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
            return try await Self.collectingDelegate.get(request, on: Self.delegateURLSession)
        case .netURLSession:
            return try await Self.netURLSessionSession.requestData(for: url).data.count
        case .netURLSessionClient:
            return try await Self.urlSessionNetworkClient.requestData(for: url).data.count
        }
    }
}

extension LoadClient {
    /// POSTs the file at `file` to `url` (the server answers with the length it counted) and
    /// returns that length. The URLSession clients and Net's sessions only (the AsyncHTTPClient
    /// peers' file uploads are in the ordo benchmarks).
    func upload(file: URL, to url: URL) async throws -> Int {
        switch self {
        case .rawURLSession:
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.timeoutInterval = 60
            let (data, _) = try await Self.urlSession.upload(for: request, fromFile: file)
            return Int(String(decoding: data, as: UTF8.self)) ?? -1
        case .rawURLSessionDelegate:
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.timeoutInterval = 60
            let data = try await Self.collectingDelegate.upload(request, fromFile: file, on: Self.delegateURLSession)
            return Int(String(decoding: data, as: UTF8.self)) ?? -1
        case .netURLSession, .netURLSessionClient, .netAHC, .netAHCClient:
            let request = try NetworkRequest(url: url, httpMethod: .post)
            let response = switch self {
            case .netURLSession: try await Self.netURLSessionSession.requestUpload(for: request, fromFile: file)
            case .netURLSessionClient: try await Self.urlSessionNetworkClient.requestUpload(for: request, fromFile: file)
            case .netAHC: try await Self.netAHCSession.requestUpload(for: request, fromFile: file)
            default: try await Self.ahcNetworkClient.requestUpload(for: request, fromFile: file)
            }
            return Int(String(decoding: response.data, as: UTF8.self)) ?? -1
        default:
            throw NetworkError.transport(.other("\(rawValue) has no file upload workload"))
        }
    }
}

extension LoadClient {
    /// GETs `url` into the file `destination` (raw URLSession: its own download file, then moved
    /// there) and returns the file's size.
    func download(_ url: URL, to destination: URL) async throws -> Int {
        defer { try? FileManager.default.removeItem(at: destination) }
        switch self {
        case .rawURLSession:
            var request = URLRequest(url: url)
            request.timeoutInterval = 60
            let (file, _) = try await Self.urlSession.download(for: request)
            defer { try? FileManager.default.removeItem(at: file) }  // gone once moved; there if the move failed
            try? FileManager.default.removeItem(at: destination)
            try FileManager.default.moveItem(at: file, to: destination)
        case .netURLSession:
            _ = try await Self.netURLSessionSession.requestDownload(for: url, to: destination)
        case .netURLSessionClient:
            _ = try await Self.urlSessionNetworkClient.requestDownload(for: url, to: destination)
        case .netAHC:
            _ = try await Self.netAHCSession.requestDownload(for: url, to: destination)
        case .netAHCClient:
            _ = try await Self.ahcNetworkClient.requestDownload(for: url, to: destination)
        default:
            throw NetworkError.transport(.other("\(rawValue) has no download workload"))
        }
        return (try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?.intValue ?? -1
    }
}

/// The session layer alone, without a network: `canned` (a session on a transport that returns
/// one response), `canned-client` (NetworkClient, no interceptors, on that transport), `stub` (on StubTransport), `client` (NetworkClient with RetryPolicy on the stub).
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

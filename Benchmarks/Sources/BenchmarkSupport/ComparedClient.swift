import AsyncHTTPClient
import Foundation
import Net
import NetAsyncHTTPClient
import NIOCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The four clients §2 and §7 of Docs/Benchmarks.md compare over loopback (package-benchmark's
/// transfer and stream benchmarks, and `NetLoad transfer`, which runs the same calls one process
/// at a time), each with one long-lived session or client per process, as an application holds
/// them. Every raw client is configured as Net's transport configures its own: 8 connections per
/// host, redirects not followed, no cookies or cache; for AsyncHTTPClient the same decompression
/// limit and connect timeout, no tracer. Every call has 60 s, as Net's, but a stream's body, which
/// has no deadline for any client once its head has arrived.
public enum ComparedClient: String, CaseIterable, Sendable {
    /// Raw URLSession: completion-handler tasks, its download task, a delegate for streams.
    case urlSession = "raw URLSession"
    /// `NetworkClient` (no interceptors) on `URLSessionTransport`.
    case net = "Net on URLSessionTransport"
    /// Raw AsyncHTTPClient: its async API, `FileDownloadDelegate` for files.
    case asyncHTTPClient = "AsyncHTTPClient"
    /// `NetworkClient` (no interceptors) on `AsyncHTTPClientTransport`.
    case netAHC = "Net on AsyncHTTPClientTransport"

    /// The name `NetLoad transfer` takes on its command line: for Net, the name `NetLoad run` gives
    /// its `NetworkClient` clients (`run`'s `net-ahc` and `net-urlsession` are session actors).
    public var commandName: String {
        switch self {
        case .urlSession: "raw-urlsession"
        case .net: "net-urlsession-client"
        case .asyncHTTPClient: "raw-ahc"
        case .netAHC: "net-ahc-client"
        }
    }

    /// The client `commandName` names.
    public init?(commandName: String) {
        guard let client = Self.allCases.first(where: { $0.commandName == commandName }) else { return nil }
        self = client
    }

    /// Raw URLSession's session: redirects declined, as Net's transport declines them.
    public static let rawURLSession = URLSession(configuration: .likeNetsTransport(connectionsPerHost: 8), delegate: NoRedirects(), delegateQueue: nil)
    /// Raw URLSession's streaming as a hand-written delegate does it on Linux: each chunk counted and dropped.
    static let countingReader = DelegateReader(collects: false)
    static let countingURLSession = URLSession(configuration: .likeNetsTransport(connectionsPerHost: 8), delegate: countingReader, delegateQueue: nil)
    /// Net on URLSessionTransport with its defaults.
    public static let netOnURLSession = NetworkClient(transport: URLSessionTransport())
    /// Raw AsyncHTTPClient's client.
    public static let rawAHC = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .likeNetsTransport(connectionsPerHost: 8))
    /// Net on AsyncHTTPClientTransport with its defaults.
    public static let netOnAHC = NetworkClient(transport: AsyncHTTPClientTransport())

    /// What a call goes through: Net's client, or one of the two raw clients.
    private enum Path {
        case net(NetworkClient)
        case rawURLSession
        case rawAHC
    }

    private var path: Path {
        switch self {
        case .net: .net(Self.netOnURLSession)
        case .netAHC: .net(Self.netOnAHC)
        case .urlSession: .rawURLSession
        case .asyncHTTPClient: .rawAHC
        }
    }

    /// GETs `url` into memory; returns the body's length.
    public func get(_ url: URL) async throws -> Int {
        switch path {
        case .net(let client):
            return try await client.requestData(for: url).data.count
        case .rawAHC:
            let response = try await Self.rawAHC.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
            return try await response.body.collect(upTo: 256 << 20).readableBytes
        case .rawURLSession:
            return try await Self.rawURLSession.data(from: url).0.count
        }
    }

    /// GETs `url` into the file `destination`, each client with its own writer (raw URLSession's
    /// download task into a temporary file of its own, AsyncHTTPClient's `FileDownloadDelegate`,
    /// Net's `requestDownload`), within 60 s as Net's call; returns the size of the file written.
    /// The file is removed before returning, inside the time measured, the same for every client.
    public func download(_ url: URL, to destination: URL) async throws -> Int {
        defer { try? FileManager.default.removeItem(at: destination) }
        switch path {
        case .net(let client):
            return try Self.size(of: try await client.requestDownload(for: url, to: destination).url)
        case .rawAHC:
            let delegate = try FileDownloadDelegate(path: destination.path)
            _ = try await Self.rawAHC.execute(request: try HTTPClient.Request(url: url.absoluteString), delegate: delegate,
                                              deadline: .now() + .seconds(60)).get()
            return try Self.size(of: destination)
        case .rawURLSession:
            let (file, _) = try await Self.rawURLSession.download(from: url)
            defer { try? FileManager.default.removeItem(at: file) }
            return try Self.size(of: file)
        }
    }

    /// What an upload sends: a `Data` held in memory, or a file.
    public enum UploadBody: Sendable {
        /// A body held in memory.
        case data(Data)
        /// The file at this URL.
        case file(URL)
    }

    /// POSTs `body` to `url` (the server answers with the length it counted); returns that length.
    public func upload(_ body: UploadBody, to url: URL) async throws -> Int {
        let answer: Data
        switch path {
        case .net(let client):
            let request = try NetworkRequest(url: url, httpMethod: .post)
            answer = switch body {
            case .data(let data): try await client.requestUpload(for: request, from: data).data
            case .file(let file): try await client.requestUpload(for: request, fromFile: file).data
            }
        case .rawAHC:
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .POST
            switch body {
            case .data(let data):
                // From the same `Data` as the others, as AsyncHTTPClient takes one: it copies the
                // bytes into buffers of about 4 MB as it sends them.
                request.body = .bytes(data)
            case .file(let file):
                request.body = .stream(FileChunks(url: file), length: .known(Int64(try Self.size(of: file))))
            }
            let response = try await Self.rawAHC.execute(request, timeout: .seconds(60))
            answer = Data(String(buffer: try await response.body.collect(upTo: 1 << 20)).utf8)
        case .rawURLSession:
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            answer = switch body {
            case .data(let data): try await Self.rawURLSession.upload(for: request, from: data).0
            case .file(let file): try await Self.rawURLSession.upload(for: request, fromFile: file).0
            }
        }
        return Int(String(decoding: answer, as: UTF8.self)) ?? -1
    }

    /// GETs `url` and reads its body as it arrives, each chunk counted and dropped: Net's
    /// `requestStream`, raw AsyncHTTPClient's response body iterated (no deadline during the body,
    /// as Net's stream has none once its head has arrived), raw URLSession through a delegate.
    /// Returns the number of bytes read.
    public func stream(_ url: URL) async throws -> Int {
        var received = 0
        switch path {
        case .net(let client):
            for try await chunk in try await client.requestStream(for: url).body { received += chunk.count }
        case .rawAHC:
            let response = try await Self.rawAHC.execute(HTTPClientRequest(url: url.absoluteString), deadline: .distantFuture)
            for try await chunk in response.body { received += chunk.readableBytes }
        case .rawURLSession:
            received = try await Self.countingReader.read(Self.countingURLSession.dataTask(with: URLRequest(url: url)))
        }
        return received
    }

    /// The size of the file at `file`, in bytes.
    public static func size(of file: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? -1
    }
}

import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import Net
import NetAsyncHTTPClient
import NIOCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The three clients compared over loopback, each with one long-lived session or client.
enum Client: String, CaseIterable {
    case urlSession = "raw URLSession"
    case net = "Net on URLSessionTransport"
    case asyncHTTPClient = "AsyncHTTPClient"
    case netAHC = "Net on AsyncHTTPClientTransport"
}

/// Shared state: one of each client per process, as an application would hold them.
enum Clients {
    static let urlSession = URLSession(configuration: .default)
    static let net = BareSession(transport: URLSessionTransport())
    static let netAHC = BareSession(transport: AsyncHTTPClientTransport())  // 8 per host, like HTTPClient.shared

    /// GET `url` into memory; returns the body's length.
    static func get(_ url: URL, with client: Client) async throws -> Int {
        switch client {
        case .urlSession:
            let (data, _) = try await urlSession.data(from: url)
            return data.count
        case .net:
            return try await net.requestData(for: url).data.count
        case .netAHC:
            return try await netAHC.requestData(for: url).data.count
        case .asyncHTTPClient:
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
            return try await response.body.collect(upTo: 256 << 20).readableBytes
        }
    }

    /// GET `url` into the file `destination`; returns the file's size.
    static func download(_ url: URL, to destination: URL, with client: Client) async throws -> Int {
        defer { try? FileManager.default.removeItem(at: destination) }
        switch client {
        case .urlSession:
            let (file, _) = try await urlSession.download(from: url)
            defer { try? FileManager.default.removeItem(at: file) }
            return try size(of: file)
        case .net, .netAHC:
            let response = try await (client == .net ? net : netAHC).requestDownload(for: url, to: destination)
            return try size(of: response.url)
        case .asyncHTTPClient:
            let delegate = try FileDownloadDelegate(path: destination.path)
            let progress = try await HTTPClient.shared.execute(request: try HTTPClient.Request(url: url.absoluteString), delegate: delegate).get()
            return progress.receivedBytes
        }
    }

    /// POST the file at `file` to `url`; returns the length the server counted.
    static func upload(_ file: URL, to url: URL, with client: Client) async throws -> Int {
        switch client {
        case .urlSession:
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            let (data, _) = try await urlSession.upload(for: request, fromFile: file)
            return Int(String(decoding: data, as: UTF8.self)) ?? -1
        case .net, .netAHC:
            let request = try NetworkRequest(url: url, httpMethod: .post)
            let session = client == .net ? net : netAHC
            return Int(String(decoding: try await session.requestUpload(for: request, fromFile: file).data, as: UTF8.self)) ?? -1
        case .asyncHTTPClient:
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .POST
            let length = try size(of: file)
            request.body = .stream(FileChunks(url: file), length: .known(Int64(length)))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            return Int(String(buffer: try await response.body.collect(upTo: 1 << 20))) ?? -1
        }
    }

    static func size(of file: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? -1
    }
}

/// A file read in 1 MiB buffers as they are asked for, for AsyncHTTPClient's streamed body.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let url: URL

    struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle?
        mutating func next() async throws -> ByteBuffer? {
            guard let handle, let data = try handle.read(upToCount: 1 << 20), !data.isEmpty else {
                try handle?.close()
                return nil
            }
            return ByteBuffer(bytes: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(handle: try? FileHandle(forReadingFrom: url)) }
}

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

/// Shared state: one of each client per process, as an application would hold them, each raw
/// client configured as Net's transport configures its own (8 connections per host, redirects not
/// followed, no cookies or cache; for AsyncHTTPClient the same decompression limit and timeouts, no tracer).
enum Clients {
    static let urlSession = URLSession(configuration: .likeNetsTransport(connectionsPerHost: 8), delegate: NoRedirects(), delegateQueue: nil)
    static let net = NetworkClient(transport: URLSessionTransport())
    static let ahc = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .likeNetsTransport(connectionsPerHost: 8))
    static let netAHC = NetworkClient(transport: AsyncHTTPClientTransport())

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
            let response = try await ahc.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
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
            let progress = try await ahc.execute(request: try HTTPClient.Request(url: url.absoluteString), delegate: delegate).get()
            return progress.receivedBytes
        }
    }

    /// What an upload sends: a `Data` held in memory, or a file.
    enum UploadBody {
        case data(Data)
        case file(URL)
    }

    /// POST `body` to `url`; returns the length the server counted.
    static func upload(_ body: UploadBody, to url: URL, with client: Client) async throws -> Int {
        switch client {
        case .urlSession:
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            let (data, _) = switch body {
            case .data(let data): try await urlSession.upload(for: request, from: data)
            case .file(let file): try await urlSession.upload(for: request, fromFile: file)
            }
            return Int(String(decoding: data, as: UTF8.self)) ?? -1
        case .net, .netAHC:
            let request = try NetworkRequest(url: url, httpMethod: .post)
            let session = client == .net ? net : netAHC
            let response = switch body {
            case .data(let data): try await session.requestUpload(for: request, from: data)
            case .file(let file): try await session.requestUpload(for: request, fromFile: file)
            }
            return Int(String(decoding: response.data, as: UTF8.self)) ?? -1
        case .asyncHTTPClient:
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .POST
            switch body {
            case .data(let data):
                // From the same `Data` as the others, as AsyncHTTPClient takes one: it copies the
                // bytes into buffers of about 4 MB as it sends them.
                request.body = .bytes(data)
            case .file(let file):
                request.body = .stream(FileChunks(url: file), length: .known(Int64(try size(of: file))))
            }
            let response = try await ahc.execute(request, timeout: .seconds(60))
            return Int(String(buffer: try await response.body.collect(upTo: 1 << 20))) ?? -1
        }
    }

    static func size(of file: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? -1
    }
}

/// A file read for raw AsyncHTTPClient, which has no file body of its own, the way Net's transport
/// reads one: 256 KiB at a time with `read(2)`, straight into the buffer that is sent.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    static let pieceSize = 256 * 1024
    let url: URL

    /// The open file, closed when the last iterator lets it go.
    final class Descriptor: Sendable {
        let number: Int32
        init(path: String) { number = open(path, O_RDONLY | O_CLOEXEC) }
        deinit { if number >= 0 { close(number) } }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let file: Descriptor

        mutating func next() async throws -> ByteBuffer? {
            guard file.number >= 0 else { throw POSIXError(.ENOENT) }
            var buffer = ByteBuffer()
            buffer.reserveCapacity(FileChunks.pieceSize)
            var failed = false
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: FileChunks.pieceSize) { room in
                let count = read(file.number, room.baseAddress, FileChunks.pieceSize)
                failed = count < 0
                return Swift.max(count, 0)
            }
            if failed { throw POSIXError(.EIO) }
            return count > 0 ? buffer : nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(file: Descriptor(path: url.path)) }
}

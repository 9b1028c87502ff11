import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// A Hummingbird server on 127.0.0.1 whose `/form` parses a multipart upload with multipart-kit
/// while it streams in, and answers with what it found (headers, sizes and checksums of parts).
actor MultipartUploadServer {
    static let shared = MultipartUploadServer()
    private var started: Task<URL, any Error>?

    struct ReceivedPart: Codable, Equatable {
        var headers: [[String]]
        var length: Int
        var checksum: UInt64
    }

    func baseURL() async throws -> URL {
        if let started { return try await started.value }
        let task = Task { try await Self.start() }
        started = task
        return try await task.value
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer, into hash: inout UInt64) {
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    }

    private static func start() async throws -> URL {
        let router = Router()
        router.post("/form") { request, _ -> Response in
            guard let contentType = request.headers[.contentType],
                  let range = contentType.range(of: "boundary=") else { throw HTTPError(.badRequest) }
            let parser = MultipartParser(boundary: String(contentType[range.upperBound...]))
            var parts: [ReceivedPart] = []
            var current = ReceivedPart(headers: [], length: 0, checksum: 0xcbf2_9ce4_8422_2325)
            parser.onHeader = { name, value in current.headers.append([name, value]) }
            parser.onBody = { buffer in
                current.length += buffer.readableBytes
                buffer.withUnsafeReadableBytes { checksum($0, into: &current.checksum) }
            }
            parser.onPartComplete = {
                parts.append(current)
                current = ReceivedPart(headers: [], length: 0, checksum: 0xcbf2_9ce4_8422_2325)
            }
            for try await buffer in request.body { try parser.execute(buffer) }
            let json = try JSONEncoder().encode(parts)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) })
        Task { try await app.runService(gracefulShutdownSignals: []) }
        for await port in stream {
            guard port > 0, let url = URL(string: "http://127.0.0.1:\(port)") else { break }
            return url
        }
        throw HTTPError(.internalServerError, message: "the server did not start")
    }
}

import Foundation
import Hummingbird
import MultipartKit
import NIOCore
import NetTestSupport

/// A Hummingbird server on 127.0.0.1 whose `/form` parses a multipart upload with multipart-kit
/// while it streams in, and answers with what it found (headers, sizes and checksums of parts).
/// The parsing runs off Swift's cooperative pool (``offPool(_:)``): multipart-kit in a debug build
/// spends seconds on a large upload, and on the pool that stalled every other test.
enum MultipartUploadServer {
    static let shared = SharedLoopbackServer { makeRouter() }

    struct ReceivedPart: Codable, Equatable {
        var headers: [[String]]
        var length: Int
        var checksum: UInt64
    }

    private static func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/form") { request, _ -> Response in
            guard let contentType = request.headers[.contentType],
                  let range = contentType.range(of: "boundary=") else { throw HTTPError(.badRequest) }
            let form = FormParse(boundary: String(contentType[range.upperBound...]))
            var pending = ByteBuffer()
            for try await buffer in request.body {
                var buffer = buffer
                pending.writeBuffer(&buffer)
                if pending.readableBytes >= 1 << 20 {
                    try await offPool { [pending] in try form.execute(pending) }
                    pending.clear()
                }
            }
            try await offPool { [pending] in try form.execute(pending) }
            let json = try JSONEncoder().encode(form.parts)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
        }
        return router
    }
}

/// One upload's parser and what it found. `@unchecked Sendable` because the handler hands it to
/// one ``offPool(_:)`` thread at a time and awaits each before the next: never used concurrently.
private final class FormParse: @unchecked Sendable {
    private let parser: MultipartParser
    private(set) var parts: [MultipartUploadServer.ReceivedPart] = []
    private var headers: [[String]] = []
    private var length = 0
    private var hasher = FNV1a()

    init(boundary: String) {
        parser = MultipartParser(boundary: boundary)
        parser.onHeader = { [unowned self] name, value in headers.append([name, value]) }
        parser.onBody = { [unowned self] buffer in
            length += buffer.readableBytes
            buffer.withUnsafeReadableBytes { hasher.add($0) }
        }
        parser.onPartComplete = { [unowned self] in
            parts.append(MultipartUploadServer.ReceivedPart(headers: headers, length: length, checksum: hasher.value))
            (headers, length, hasher) = ([], 0, FNV1a())
        }
    }

    func execute(_ buffer: ByteBuffer) throws { try parser.execute(buffer) }
}

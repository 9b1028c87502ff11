import Foundation
import Hummingbird
import MultipartKit
import NIOCore
import NetTestSupport

/// A Hummingbird server on 127.0.0.1 whose `/form` parses a multipart upload with multipart-kit
/// while it streams in, and answers with what it found (headers, sizes and checksums of parts).
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
            let parser = MultipartParser(boundary: String(contentType[range.upperBound...]))
            var parts: [ReceivedPart] = []
            var headers: [[String]] = []
            var length = 0
            var hasher = FNV1a()
            parser.onHeader = { name, value in headers.append([name, value]) }
            parser.onBody = { buffer in
                length += buffer.readableBytes
                buffer.withUnsafeReadableBytes { hasher.add($0) }
            }
            parser.onPartComplete = {
                parts.append(ReceivedPart(headers: headers, length: length, checksum: hasher.value))
                (headers, length, hasher) = ([], 0, FNV1a())
            }
            for try await buffer in request.body { try parser.execute(buffer) }
            let json = try JSONEncoder().encode(parts)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
        }
        return router
    }
}

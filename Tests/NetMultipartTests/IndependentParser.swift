import Foundation
import MultipartKit
import NIOCore
import NetTestSupport

/// A part as vapor/multipart-kit's parser sees it.
struct ParsedPart: Equatable {
    var headers: [[String]] = []
    var body = Data()

    func header(_ name: String) -> String? {
        headers.first { $0[0].lowercased() == name.lowercased() }?[1]
    }
}

/// Parses on a thread of its own (``offPool(_:)``): the parser is CPU-bound, and holding one of the
/// few cooperative threads for seconds would delay unrelated tests that measure time.
func parseOffPool(_ body: Data, boundary: String, chunkSize: Int = 4096) async throws -> [ParsedPart] {
    try await offPool { try parseWithMultipartKit(body, boundary: boundary, chunkSize: chunkSize) }
}

/// Feeds `body` to multipart-kit in chunks of `chunkSize` bytes and returns the parts it found.
func parseWithMultipartKit(_ body: Data, boundary: String, chunkSize: Int = 4096) throws -> [ParsedPart] {
    let parser = MultipartParser(boundary: boundary)
    var parts: [ParsedPart] = []
    var current = ParsedPart()
    parser.onHeader = { name, value in current.headers.append([name, value]) }
    parser.onBody = { buffer in current.body.append(contentsOf: buffer.readableBytesView) }
    parser.onPartComplete = {
        parts.append(current)
        current = ParsedPart()
    }
    var offset = 0
    while offset < body.count {
        let end = min(body.count, offset + chunkSize)
        try parser.execute(ByteBuffer(bytes: body[offset..<end]))
        offset = end
    }
    return parts
}

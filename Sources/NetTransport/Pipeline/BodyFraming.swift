import Foundation
import NetCore

/// The one check that a body without content coding is as long as its `Content-Length`: a
/// shorter one ends with ``NetworkError/TransportFailure/connectionLost(_:)`` instead of passing
/// for complete (a transport may see a closed connection as a normal end).
enum BodyFraming {
    static func checked(_ body: NetworkResponseBody, head: NetworkResponseHead, method: NetworkHttpMethod) -> NetworkResponseBody {
        guard !body.isWithheld, method != .head, head.statusCode != 204, head.statusCode != 304,
              head.headers["Content-Encoding"] == nil,
              let expected = head.expectedContentLength else { return body }
        if case .whole(let data) = body.storage, Int64(data.count) >= expected { return body }
        let url = head.url
        return body.wrapped(in: FramedChunks(base: body, expected: expected, url: url))
    }
}

/// `base`'s chunks, failing at the end when fewer than `expected` bytes came.
private struct FramedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error
    let base: NetworkResponseBody
    let expected: Int64
    let url: URL

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), expected: expected, url: url)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: NetworkResponseBody.Iterator
        let expected: Int64
        let url: URL
        var received: Int64 = 0

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else {
                guard received >= expected else {
                    throw NetworkError.transport(.connectionLost("the body ended after \(received) of \(expected) bytes from \(NetworkRedaction.redactedURL(url))"))
                }
                return nil
            }
            received += Int64(chunk.count)
            return chunk
        }
    }
}

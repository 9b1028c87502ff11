import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking

// What FoundationNetworking lacks for the upstream EventSource actor to compile: a
// `URLSession.bytes(for:delegate:)` that fails at once. Only the upstream parser is used here.
extension URLSession {
    /// An empty byte sequence, the shape the upstream code iterates.
    struct LinuxBytes: AsyncSequence {
        typealias Element = UInt8
        struct AsyncIterator: AsyncIteratorProtocol {
            mutating func next() async throws -> UInt8? { nil }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }

    /// Always throws: FoundationNetworking has no streamed bytes.
    func bytes(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (LinuxBytes, URLResponse) {
        throw URLError(.unsupportedURL)
    }
}
#endif

#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
import NetCore
import NetTransport
import NIOCore

/// AsyncHTTPClient's body as `Data` chunks, its errors mapped to ``NetworkError``.
struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    /// Where the parts come from: the delegate's exchange, or AsyncHTTPClient's body stream.
    enum Source: Sendable {
        case exchange(ExchangeDelegate)
        case body(HTTPClientResponse.Body)
    }

    let source: Source
    let request: NetworkRequest
    let limits: ResponseLimits

    func makeAsyncIterator() -> Iterator {
        switch source {
        case .exchange(let exchange): Iterator(parts: .exchange(exchange), request: request, limits: limits)
        case .body(let body): Iterator(parts: .body(body.makeAsyncIterator()), request: request, limits: limits)
        }
    }

    /// The chunk's bytes as `Data`, without copying them when the chunk is large: the `Data` holds
    /// a reference to the buffer's storage until it is released (SwiftNIO's documented way to keep
    /// its bytes past the closure), and SwiftNIO never writes into storage referenced twice. A
    /// 1 GiB stream spent a third of its CPU copying before. Small chunks are copied, which costs
    /// less than the shared storage's bookkeeping.
    static func data(sharing buffer: ByteBuffer) -> Data {
        guard buffer.readableBytes >= 16 << 10 else { return buffer.withUnsafeReadableBytes { Data($0) } }
        return buffer.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
            guard let base = bytes.baseAddress else { return Data() }
            let owner = storage.retain()  // released once, when the `Data` lets go of the bytes
            return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count,
                        deallocator: .custom { _, _ in owner.release() })
        }
    }

    struct Iterator: AsyncIteratorProtocol {
        enum Parts {
            case exchange(ExchangeDelegate)
            case body(HTTPClientResponse.Body.AsyncIterator)
        }

        var parts: Parts
        let request: NetworkRequest
        let limits: ResponseLimits

        mutating func next() async throws -> Data? {
            do {
                let buffer: ByteBuffer?
                switch parts {
                case .exchange(let exchange):
                    buffer = try await exchange.nextPart()
                case .body(var iterator):
                    buffer = try await iterator.next()
                    parts = .body(iterator)
                }
                return buffer.map(ResponseChunks.data(sharing:))
            } catch {
                throw ErrorMapping.networkError(for: error, request: request, limits: limits)
            }
        }
    }
}
#endif

import Foundation

/// A body copied aside as the caller reads it, for the cache: at its end (read completely,
/// without error, no larger than the cache's entry size, and as long as its declared
/// `Content-Length`, so a truncated body is never stored) the copy is handed to `store`.
struct CacheFillingChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let base: NetworkResponseBody
    let limit: Int
    /// The decoded length the head declares, if it declares one that applies.
    let expected: Int64?
    let store: @Sendable (Data) -> Void

    static func body(_ base: NetworkResponseBody, limit: Int, expected: Int64?, store: @escaping @Sendable (Data) -> Void) -> NetworkResponseBody {
        NetworkResponseBody(storage: .chunks(CacheFillingChunks(base: base, limit: limit, expected: expected, store: store)), lease: nil)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), limit: limit, expected: expected, store: store)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: NetworkResponseBody.Iterator
        let limit: Int
        let expected: Int64?
        let store: @Sendable (Data) -> Void
        /// `nil` once the body outgrew the limit.
        var copy: Data? = Data()

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else {
                if let copy, expected.map({ Int64(copy.count) == $0 }) ?? true { store(copy) }
                copy = nil
                return nil
            }
            // Taken out of the optional so the append happens in place.
            if var kept = copy.take(), kept.count + chunk.count <= limit {
                kept.append(chunk)
                copy = kept
            }
            return chunk
        }
    }
}

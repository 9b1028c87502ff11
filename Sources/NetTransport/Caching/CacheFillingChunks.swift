import Foundation

/// A body copied aside as the caller reads it, for the cache: at its end (read completely,
/// without error, and no larger than the cache's entry size) the copy is handed to `store`. The
/// caller frames the body first (``BodyFraming``), so a truncated one ends in an error, unstored.
struct CacheFillingChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let base: NetworkResponseBody
    let limit: Int
    let store: @Sendable (Data) -> Void

    static func body(_ base: NetworkResponseBody, limit: Int, store: @escaping @Sendable (Data) -> Void) -> NetworkResponseBody {
        base.wrapped(in: CacheFillingChunks(base: base, limit: limit, store: store))
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), limit: limit, store: store)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: NetworkResponseBody.Iterator
        let limit: Int
        let store: @Sendable (Data) -> Void
        /// `nil` once the body outgrew the limit.
        var copy: Data? = Data()

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else {
                if let copy { store(copy) }
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

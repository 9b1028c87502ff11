#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request body produced as a sequence of chunks, of known or unknown total length.
///
/// The stream holds a *factory* rather than a sequence, so a body can be sent again: a retry, or a
/// 307/308 redirect that must repeat the body, simply asks for a new sequence. Readers enforce the
/// declared `length`: a source that produces more or fewer bytes ends with
/// ``NetworkError/RequestFailure/bodyLengthMismatch(expected:actual:)`` instead of a truncated
/// upload that looks like success.
///
/// ```swift
/// let body = NetworkBodyStream(length: 11) {
///     AsyncStream { continuation in
///         continuation.yield(Data("hello ".utf8))
///         continuation.yield(Data("world".utf8))
///         continuation.finish()
///     }
/// }
/// ```
public struct NetworkBodyStream: Sendable {
    /// The exact number of bytes the stream produces, or `nil` when unknown (sent chunked).
    public let length: Int64?
    private let makeNextChunk: @Sendable () -> () async throws -> Data?

    /// Creates a stream from a factory of async sequences of `Data` chunks.
    ///
    /// - Parameters:
    ///   - length: the exact total byte count, or `nil` if it is not known in advance.
    ///   - makeSequence: called once per send; each call must produce the same bytes.
    public init<Chunks: AsyncSequence & Sendable>(
        length: Int64?,
        makeSequence: @escaping @Sendable () -> Chunks
    ) where Chunks.Element == Data {
        self.length = length
        self.makeNextChunk = {
            var iterator = makeSequence().makeAsyncIterator()
            return { try await iterator.next() }
        }
    }

    /// Creates a stream that replays fixed chunks; its length is their total size.
    public init(chunks: [Data]) {
        let total = chunks.reduce(Int64(0)) { $0 + Int64($1.count) }
        self.init(length: total) {
            AsyncStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
        }
    }

    /// Starts a new pass over the body.
    public func makeReader() -> Reader {
        Reader(expectedLength: length, nextChunk: makeNextChunk())
    }

    /// One pass over a stream's chunks, for a single consumer (a transport).
    ///
    /// Like an `AsyncIterator`, a reader is owned by the one task that drains it, so it is
    /// deliberately not `Sendable`; make a new reader in each task instead.
    public struct Reader {
        private let expectedLength: Int64?
        private let nextChunk: () async throws -> Data?
        private var produced: Int64 = 0
        private var finished = false

        init(expectedLength: Int64?, nextChunk: @escaping () async throws -> Data?) {
            self.expectedLength = expectedLength
            self.nextChunk = nextChunk
        }

        /// The number of bytes returned so far.
        public var bytesRead: Int64 { produced }

        /// The next non-empty chunk, or `nil` at the end.
        ///
        /// Throws ``NetworkError/RequestFailure/bodyLengthMismatch(expected:actual:)`` as soon as
        /// the source goes past its declared length, or when it ends short of it.
        public mutating func next() async throws -> Data? {
            guard !finished else { return nil }
            while let chunk = try await nextChunk() {
                guard !chunk.isEmpty else { continue }
                produced += Int64(chunk.count)
                if let expectedLength, produced > expectedLength {
                    finished = true
                    throw NetworkError.request(.bodyLengthMismatch(expected: expectedLength, actual: produced))
                }
                return chunk
            }
            finished = true
            if let expectedLength, produced != expectedLength {
                throw NetworkError.request(.bodyLengthMismatch(expected: expectedLength, actual: produced))
            }
            return nil
        }
    }
}

@available(*, unavailable, message: "a reader belongs to the task that drains it; call makeReader() in each task")
extension NetworkBodyStream.Reader: Sendable {}

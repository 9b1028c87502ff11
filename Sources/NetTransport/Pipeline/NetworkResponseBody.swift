import Foundation
import NetCore

/// A response body as it arrives: an `AsyncSequence` of byte chunks that the caller pulls.
///
/// A transport reads from the network only as fast as chunks are taken (the buffer each transport
/// keeps is documented on it), so a slow consumer holds memory flat. Iterate it once, from one
/// task: a body that arrives in chunks has one reader, and a second iterator (another loop,
/// another task, a `collect()` after a partial read) throws ``NetworkError/TransportFailure/other(_:)``
/// at its first `next()` without disturbing the first. A body already whole in memory may be read
/// again.
///
/// ```swift
/// let stream = try await client.requestStream(for: "https://example.com/log")
/// for try await chunk in stream.body { FileHandle.standardOutput.write(chunk) }
/// ```
///
/// The exchange ends when the sequence ends, throws, or is dropped: dropping a body that was not
/// read to its end, or cancelling the task that reads it, closes the connection. A body that ends
/// because the reading task was cancelled throws `CancellationError` instead of looking complete.
public struct NetworkResponseBody: AsyncSequence, Sendable {
    /// A chunk of body bytes, in arrival order.
    public typealias Element = Data
    /// What reading can throw: ``NetworkError`` or `CancellationError`.
    public typealias Failure = any Error

    enum Storage: Sendable {
        case whole(Data)
        case channel(BodyChannel)
        /// Makes the one reader of a chunk sequence (erased without `any AsyncSequence<Data, …>`,
        /// which needs macOS 15).
        case sequence(@Sendable () -> any ChunkReader)

        static func chunks<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) -> Storage where Chunks.Element == Data {
            .sequence { IteratorReader(chunks.makeAsyncIterator()) }
        }
    }

    let storage: Storage
    /// Runs once when the body is read to its end, fails, or is dropped.
    let lease: BodyLease?
    /// The transport could not deliver this body at all (URLSession withholds a challenged 401's),
    /// so its length is not checked against the head's `Content-Length`.
    var isWithheld = false
    /// The `Content-Length` the body must reach, checked as it is read (see ``BodyFraming``).
    var framing: BodyFraming?
    /// Taken by the first iterator of a body that arrives in chunks; shared by the body's copies.
    private var reader: ReaderClaim?

    init(storage: Storage, lease: BodyLease?) {
        self.storage = storage
        self.lease = lease
        if case .whole = storage {} else { reader = ReaderClaim() }
    }

    /// A body already in memory (a stub's answer, a cache hit, a small body a transport received
    /// whole before handing over its head).
    public init(_ data: Data) {
        self.init(storage: .whole(data), lease: nil)
    }

    /// A body read from `chunks`, which should pull from the network only as chunks are taken.
    /// `onEnd` runs once when the body ends, fails or is dropped: release the connection there.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, onEnd: (@Sendable () -> Void)? = nil)
    where Chunks.Element == Data {
        self.init(storage: .chunks(chunks), lease: onEnd.map { BodyLease(parent: nil, action: $0) })
    }

    /// This body, with `action` run once when it ends, fails or is dropped (after any action the
    /// body already had). The chain uses it to release a concurrency permit or log the end.
    public func onEnd(_ action: @escaping @Sendable () -> Void) -> NetworkResponseBody {
        onEnding { _ in action() }
    }

    /// ``onEnd(_:)``, told how the body ended.
    func onEnding(_ action: @escaping @Sendable (BodyEnding) -> Void) -> NetworkResponseBody {
        var body = NetworkResponseBody(storage: storage, lease: BodyLease(parent: lease, action: action))
        body.isWithheld = isWithheld
        body.framing = framing
        body.reader = reader  // the same chunks: one reader between them
        return body
    }

    /// A body read through `chunks`, a sequence that wraps this body's own chunks (a check, a
    /// copy), keeping what is known about this one. This body's own iterator keeps its framing
    /// check, so the wrapper has none.
    func wrapped<Chunks: AsyncSequence & Sendable>(in chunks: Chunks) -> NetworkResponseBody where Chunks.Element == Data {
        var body = NetworkResponseBody(storage: .chunks(chunks), lease: nil)
        body.isWithheld = isWithheld
        return body
    }

    /// Reads the whole body into memory; past `limit` bytes (when given) it stops reading and
    /// throws ``NetworkError/TransportFailure/responseBodyLimitExceeded(_:)``.
    public func collect(upTo limit: Int64? = nil) async throws -> Data {
        try await collect(upTo: limit, received: nil)
    }

    /// ``collect(upTo:)``, telling `received` the running total after each chunk (download progress).
    func collect(upTo limit: Int64?, received: ((Int64) -> Void)?) async throws -> Data {
        if let data = takeWhole(upTo: limit, received: received) { return data }
        var data: Data?
        for try await chunk in self {
            let count = (data?.count ?? 0) + chunk.count
            if let limit, Int64(count) > limit {
                let error = NetworkError.transport(.responseBodyLimitExceeded(.inMemorySize(bytes: limit)))
                lease?.end(.failed(error))  // the iterator saw no end: the body ends here
                throw error
            }
            // The first chunk is kept as it is: most bodies are one chunk, and need no copy.
            if data == nil { data = chunk } else { data?.append(chunk) }
            received?(Int64(count))
        }
        return data ?? Data()
    }

    /// The body, when it is already whole (most small bodies), within `limit` and needing no
    /// framing check: ended and counted here, with nothing to wait for. Synchronous, so that a
    /// caller can take it without an async call (``collect(upTo:received:)`` asks it first).
    func takeWhole(upTo limit: Int64?, received: ((Int64) -> Void)?) -> Data? {
        guard case .whole(let data) = storage, framing == nil, limit.map({ Int64(data.count) <= $0 }) ?? true else { return nil }
        lease?.end(.finished(bytes: Int64(data.count)))
        received?(Int64(data.count))
        return data
    }

    /// Starts reading the body.
    public func makeAsyncIterator() -> Iterator {
        Iterator(body: self)
    }

    /// Reads chunks in order; see ``NetworkResponseBody``.
    public struct Iterator: AsyncIteratorProtocol {
        private enum Source {
            case whole(Data?)
            case channel(BodyChannel)
            case sequence(any ChunkReader)
            /// Another iterator has the chunks.
            case refused
            case ended
        }

        private var source: Source
        private let lease: BodyLease?
        private let framing: BodyFraming?
        private var received: Int64 = 0

        init(body: NetworkResponseBody) {
            framing = body.framing
            guard body.reader?.claim() ?? true else {
                // Not the body's reader: its end is the other iterator's to report.
                (lease, source) = (nil, .refused)
                return
            }
            lease = body.lease
            source = switch body.storage {
            case .whole(let data): .whole(data.isEmpty ? nil : data)
            case .channel(let channel): .channel(channel)
            case .sequence(let makeReader): .sequence(makeReader())
            }
        }

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws -> Data? {
            do {
                let chunk: Data?
                switch source {
                case .whole(let data):
                    chunk = data
                    source = .whole(nil)
                case .channel(let channel):
                    chunk = try await channel.next()
                case .sequence(let reader):
                    // SwiftNIO ends a body quietly when the reading task is cancelled; that is not
                    // the body's end, so it must not pass for one.
                    chunk = try await reader.next()
                    if chunk == nil { try Task.checkCancellation() }
                case .refused:
                    source = .ended
                    throw NetworkError.transport(.other(
                        "this response body is already being read, or was read; iterate a body once, from one task"))
                case .ended:
                    return nil
                }
                guard let chunk else {
                    try framing?.checkEnd(after: received)
                    end(.finished(bytes: received))
                    return nil
                }
                received += Int64(chunk.count)
                return chunk
            } catch {
                end(.failed(error))
                throw error
            }
        }

        private mutating func end(_ ending: BodyEnding) {
            source = .ended
            lease?.end(ending)
        }
    }
}

/// Whether a body's chunks have their reader: a second reader would take chunks from the first
/// (a channel, AsyncHTTPClient's delegate API), read an ended exchange as an empty body, or stop
/// the process (SwiftNIO's body sequence allows one iterator and traps on a second).
final class ReaderClaim: Sendable {
    private let taken = Locked(false)

    /// `true` for the first caller only.
    func claim() -> Bool {
        taken.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }
}

/// The one reader of a chunk sequence, owned by the task iterating the body.
protocol ChunkReader: AnyObject {
    func next() async throws -> Data?
}

/// A sequence's iterator as a ``ChunkReader``.
final class IteratorReader<Iterator: AsyncIteratorProtocol>: ChunkReader where Iterator.Element == Data {
    private var iterator: Iterator

    init(_ iterator: Iterator) { self.iterator = iterator }

    func next() async throws -> Data? { try await iterator.next() }
}

/// How a body's exchange ended.
enum BodyEnding: Sendable {
    /// Read to its end: `bytes` of it (after content decoding).
    case finished(bytes: Int64)
    /// Its reading threw `error` (`CancellationError` when the reading task was cancelled).
    case failed(any Error)
    /// Dropped before its end: the caller stopped reading, and its connection was closed.
    case dropped
}

/// What runs once when a body's exchange is over: read to its end, failed, or dropped (`deinit`).
/// The action given first runs first: the transport's own (releasing its connection), then each
/// stage's above it in the order they added theirs.
final class BodyLease: Sendable {
    private let parent: BodyLease?
    private let action: Locked<(@Sendable (BodyEnding) -> Void)?>

    init(parent: BodyLease?, action: @escaping @Sendable (BodyEnding) -> Void) {
        self.parent = parent
        self.action = Locked(action)
    }

    convenience init(parent: BodyLease?, action: @escaping @Sendable () -> Void) {
        self.init(parent: parent) { (_: BodyEnding) in action() }
    }

    func end(_ ending: BodyEnding) {
        parent?.end(ending)
        let pending = action.withLock { action in
            defer { action = nil }
            return action
        }
        pending?(ending)
    }

    deinit { end(.dropped) }
}

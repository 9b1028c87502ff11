#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The events of a Server-Sent Events body, decoded as its chunks arrive (see
/// ``ServerSentEventDecoder`` for the rules and limits). Made by
/// `serverSentEvents(maximumLineLength:maximumEventLength:)` on any sequence of byte chunks, such
/// as a streamed response body:
///
/// ```swift
/// let stream = try await client.requestStream(for: "https://example.com/events")
/// for try await event in stream.body.serverSentEvents() { print(event.type, event.data) }
/// ```
///
/// It reads one connection and ends with it; to reconnect, use an event source
/// (`NetworkSession.eventSource(for:reconnection:)` in NetTransport).
public struct ServerSentEventSequence<Chunks: AsyncSequence>: AsyncSequence where Chunks.Element == Data {
    /// One event.
    public typealias Element = ServerSentEvent

    let chunks: Chunks
    let maximumLineLength: Int
    let maximumEventLength: Int

    /// Starts reading the chunks.
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            chunks: chunks.makeAsyncIterator(),
            decoder: ServerSentEventDecoder(maximumLineLength: maximumLineLength, maximumEventLength: maximumEventLength)
        )
    }

    /// Reads events in order; throws what the chunks throw, or a ``NetworkError/StreamFailure``
    /// after the events that came before it.
    public struct Iterator: AsyncIteratorProtocol {
        var reader: DecodingReader<Chunks.AsyncIterator, ServerSentEventDecoder>

        init(chunks: Chunks.AsyncIterator, decoder: ServerSentEventDecoder) {
            reader = DecodingReader(chunks: chunks, decoder: decoder)
        }

        /// The next event, or `nil` when the stream ends (a partial last event is dropped).
        public mutating func next() async throws -> ServerSentEvent? {
            try await reader.next()
        }
    }
}

extension ServerSentEventSequence: Sendable where Chunks: Sendable {}

extension AsyncSequence where Element == Data {
    /// These chunks read as Server-Sent Events (see ``ServerSentEventSequence``).
    public func serverSentEvents(
        maximumLineLength: Int = ServerSentEventDecoder.defaultMaximumLineLength,
        maximumEventLength: Int = ServerSentEventDecoder.defaultMaximumEventLength
    ) -> ServerSentEventSequence<Self> {
        ServerSentEventSequence(chunks: self, maximumLineLength: maximumLineLength, maximumEventLength: maximumEventLength)
    }

    /// These chunks read as JSON Lines (NDJSON), one `Value` per line (see ``JSONLinesSequence``).
    public func jsonLines<Value: Decodable>(
        of type: Value.Type,
        decoder: JSONDecoder = JSONDecoder(),
        maximumLineLength: Int = JSONLinesDecoder<Value>.defaultMaximumLineLength
    ) -> JSONLinesSequence<Value, Self> {
        JSONLinesSequence(chunks: self, decoder: decoder, maximumLineLength: maximumLineLength)
    }
}

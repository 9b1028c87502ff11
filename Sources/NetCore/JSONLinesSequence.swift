#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The values of a JSON Lines (NDJSON) body, decoded line by line as its chunks arrive (see
/// ``JSONLinesDecoder`` for the rules and limits). Made by `jsonLines(of:decoder:maximumLineLength:)`
/// on any sequence of byte chunks, such as a streamed response body:
///
/// ```swift
/// struct Entry: Decodable { let level: String; let message: String }
/// let stream = try await client.requestStream(for: "https://example.com/logs")
/// for try await entry in stream.body.jsonLines(of: Entry.self) { print(entry.message) }
/// ```
public struct JSONLinesSequence<Value: Decodable, Chunks: AsyncSequence>: AsyncSequence where Chunks.Element == Data {
    /// One decoded line.
    public typealias Element = Value

    let chunks: Chunks
    let decoder: JSONDecoder
    let maximumLineLength: Int

    /// Starts reading the chunks.
    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: chunks.makeAsyncIterator(), decoder: JSONLinesDecoder(decoder: decoder, maximumLineLength: maximumLineLength))
    }

    /// Reads values in order; throws what the chunks throw, or a ``NetworkError/StreamFailure``
    /// after the values that came before it.
    public struct Iterator: AsyncIteratorProtocol {
        var reader: DecodingReader<Chunks.AsyncIterator, JSONLinesDecoder<Value>>

        init(chunks: Chunks.AsyncIterator, decoder: JSONLinesDecoder<Value>) {
            reader = DecodingReader(chunks: chunks, decoder: decoder)
        }

        /// The next value, or `nil` after the last line.
        public mutating func next() async throws -> Value? {
            try await reader.next()
        }
    }
}

extension JSONLinesSequence: Sendable where Chunks: Sendable {}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns the bytes of a JSON Lines (NDJSON) stream into values, chunk by chunk: one JSON value
/// per line, lines ended by LF (a CR before it is whitespace to JSON), blank lines skipped, and a
/// last line without a break decoded too.
///
/// ```swift
/// struct Token: Decodable { let text: String }
/// var decoder = JSONLinesDecoder<Token>()
/// let tokens = try decoder.decode(Data("{\"text\":\"Hel\"}\n{\"text\":\"lo\"}\n".utf8))
/// ```
///
/// A line that does not decode throws ``NetworkError/StreamFailure/undecodableLine(number:excerpt:reason:)``
/// with its 1-based number and its first characters; a line longer than `maximumLineLength`
/// bytes throws ``NetworkError/StreamFailure/lineTooLong(limit:)`` before it is held whole.
public struct JSONLinesDecoder<Value: Decodable>: Sendable, ChunkDecoder {
    /// The default longest line: 1 MiB.
    public static var defaultMaximumLineLength: Int { 1 << 20 }
    /// How many characters of a failing line its error shows.
    static var excerptLength: Int { 120 }

    private let decoder: JSONDecoder
    private var splitter: BoundedLineSplitter
    private var lineNumber = 0
    private var failure: NetworkError?

    /// Creates a decoder; `decoder` reads each line.
    public init(decoder: JSONDecoder = JSONDecoder(), maximumLineLength: Int = Self.defaultMaximumLineLength) {
        self.decoder = decoder
        splitter = BoundedLineSplitter(breaks: .lineFeed, maximumLength: maximumLineLength)
    }

    /// Decodes the next chunk; returns the values of the lines it completed, in order.
    public mutating func decode(_ chunk: Data) throws -> [Value] {
        var values: [Value] = []
        try decode(chunk, into: &values)
        return values
    }

    /// Decodes the next chunk, appending the values of the lines it completed to `values`. When
    /// it throws, `values` holds every value before the failure, and the decoder throws the same
    /// error for every later chunk.
    public mutating func decode(_ chunk: Data, into values: inout [Value]) throws {
        if let failure { throw failure }
        var splitter = BoundedLineSplitter.take(&self.splitter)
        defer { self.splitter = splitter }
        do {
            try chunk.withUnsafeBytes { bytes in
                try splitter.split(bytes) { line in try decodeLine(line, into: &values) }
            }
        } catch let error as NetworkError {
            failure = error
            throw error
        }
    }

    /// Ends the stream: decodes a last line that had no line break, if there is one.
    public mutating func finish() throws -> Value? {
        if let failure { throw failure }
        guard let last = splitter.finish() else { return nil }
        var values: [Value] = []
        do {
            try last.withUnsafeBytes { try decodeLine($0, into: &values) }
        } catch let error as NetworkError {
            failure = error
            throw error
        }
        return values.first
    }

    private mutating func decodeLine(_ line: UnsafeRawBufferPointer, into values: inout [Value]) throws {
        lineNumber += 1
        guard line.contains(where: { !Self.isWhitespace($0) }) else { return }
        let bytes = Data(line)
        do {
            values.append(try decoder.decode(Value.self, from: bytes))
        } catch {
            let excerpt = String(decoding: bytes.prefix(Self.excerptLength * 4), as: UTF8.self).prefix(Self.excerptLength)
            throw NetworkError.stream(.undecodableLine(number: lineNumber, excerpt: String(excerpt), reason: Self.reason(error)))
        }
    }

    /// JSON's whitespace: space, tab, CR, LF.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    /// A decoding error in one line, without the value it was decoding.
    private static func reason(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(decoding)"
        }
    }
}

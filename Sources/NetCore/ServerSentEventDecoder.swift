#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns the bytes of a Server-Sent Events stream into events, chunk by chunk, following the
/// WHATWG HTML standard's "Parsing an event stream" rules exactly: `event`, `data` (lines joined
/// with `\n`), `id` (ignored when it contains NUL; kept across events), `retry` (digits only),
/// comments, fields without a colon, one leading UTF-8 BOM, and CR, LF or CRLF line breaks. An
/// event is dispatched only at a blank line; the partial event of a stream that ends early is
/// dropped. Where the chunks are cut (inside a CRLF, inside a UTF-8 sequence) never changes the
/// events.
///
/// ```swift
/// var decoder = ServerSentEventDecoder()
/// let events = try decoder.decode(Data("data: hello\n\n".utf8))
/// // events == [ServerSentEvent(type: "message", data: "hello")]
/// ```
///
/// Memory is bounded: a line longer than `maximumLineLength` bytes throws
/// ``NetworkError/StreamFailure/lineTooLong(limit:)``, and an event whose data grows past
/// `maximumEventLength` bytes throws ``NetworkError/StreamFailure/eventTooLarge(limit:)``, so a
/// server that never sends a line break cannot grow the client's memory without limit.
public struct ServerSentEventDecoder: Sendable, ChunkDecoder {
    /// The default longest line: 1 MiB.
    public static let defaultMaximumLineLength = 1 << 20
    /// The default largest event data: 4 MiB.
    public static let defaultMaximumEventLength = 4 << 20

    /// The longest line accepted, in bytes.
    public let maximumLineLength: Int
    /// The largest event data accepted, in bytes.
    public let maximumEventLength: Int
    /// The ID of the last event dispatched (the standard's "last event ID string"); an event
    /// source sends it as `Last-Event-ID` when it reconnects.
    public private(set) var lastEventID: String
    /// The reconnection time the stream's last valid `retry:` field set, or `nil` if none did.
    public private(set) var reconnectionTime: Duration?

    private var splitter: BoundedLineSplitter
    /// The first bytes while they might still be a UTF-8 BOM (the stream's first three bytes).
    private var leading: [UInt8]? = []
    private var data: [UInt8] = []
    private var eventType: [UInt8] = []
    private var lastEventIDBuffer: String
    private var failure: NetworkError?

    /// Creates a decoder for one stream. `lastEventID` and `reconnectionTime` carry what an
    /// earlier connection of the same event source set.
    public init(
        lastEventID: String = "",
        reconnectionTime: Duration? = nil,
        maximumLineLength: Int = ServerSentEventDecoder.defaultMaximumLineLength,
        maximumEventLength: Int = ServerSentEventDecoder.defaultMaximumEventLength
    ) {
        self.lastEventID = lastEventID
        self.reconnectionTime = reconnectionTime
        lastEventIDBuffer = lastEventID
        self.maximumLineLength = maximumLineLength
        self.maximumEventLength = maximumEventLength
        splitter = BoundedLineSplitter(breaks: .anyNewline, maximumLength: maximumLineLength)
    }

    /// Decodes the next chunk of the stream; returns the events it completed, in order.
    public mutating func decode(_ chunk: Data) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        try decode(chunk, into: &events)
        return events
    }

    /// Decodes the next chunk of the stream, appending the events it completed to `events`.
    /// When it throws, `events` still holds every event that came before the failure, and the
    /// decoder throws the same error for every later chunk.
    public mutating func decode(_ chunk: Data, into events: inout [ServerSentEvent]) throws {
        if let failure { throw failure }
        do {
            try chunk.withUnsafeBytes { bytes in try decode(bytes, into: &events) }
        } catch let error as NetworkError {
            failure = error
            throw error
        }
    }

    /// The end of the stream completes nothing: the standard drops a partial last event.
    func finish() -> ServerSentEvent? { nil }

    private mutating func decode(_ bytes: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) throws {
        var bytes = bytes
        if leading != nil {
            bytes = try skipByteOrderMark(bytes, into: &events)
        }
        try split(bytes, into: &events)
    }

    private mutating func split(_ bytes: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) throws {
        var splitter = BoundedLineSplitter.take(&self.splitter)
        defer { self.splitter = splitter }
        try splitter.split(bytes) { line in try process(line, into: &events) }
    }

    /// Holds the stream's first bytes until they are known to be, or not to be, the BOM
    /// EF BB BF, which the standard's UTF-8 decode drops once, at the start only. Returns the rest.
    private mutating func skipByteOrderMark(_ bytes: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) throws -> UnsafeRawBufferPointer {
        guard var held = leading else { return bytes }
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        var index = 0
        while index < bytes.count, held.count < 3, bytes[index] == mark[held.count] {
            held.append(bytes[index])
            index += 1
        }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[index...])
        if held.count == 3 {
            leading = nil
            return rest
        }
        if index == bytes.count {
            leading = held  // still a prefix of the mark: wait for more bytes
            return rest
        }
        leading = nil
        try held.withUnsafeBytes { try split($0, into: &events) }
        return rest
    }

    /// Interprets one line (the standard's "process the field").
    private mutating func process(_ line: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) throws {
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        if first == colon { return }
        let name: UnsafeRawBufferPointer
        var value: UnsafeRawBufferPointer
        if let separator = line.firstIndex(of: colon) {
            name = UnsafeRawBufferPointer(rebasing: line[..<separator])
            value = UnsafeRawBufferPointer(rebasing: line[(separator + 1)...])
            if value.first == space { value = UnsafeRawBufferPointer(rebasing: value.dropFirst()) }
        } else {
            name = line
            value = UnsafeRawBufferPointer(start: nil, count: 0)
        }
        if name.elementsEqual("data".utf8) {
            guard data.count + value.count <= maximumEventLength else {
                throw NetworkError.stream(.eventTooLarge(limit: maximumEventLength))
            }
            data.append(contentsOf: value)
            data.append(lineFeed)
        } else if name.elementsEqual("event".utf8) {
            eventType.removeAll(keepingCapacity: true)
            eventType.append(contentsOf: value)
        } else if name.elementsEqual("id".utf8) {
            if !value.contains(0) { lastEventIDBuffer = String(decoding: value, as: UTF8.self) }
        } else if name.elementsEqual("retry".utf8) {
            if let milliseconds = Self.digits(value) { reconnectionTime = .milliseconds(milliseconds) }
        }
    }

    /// The standard's "dispatch the event", at a blank line.
    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        lastEventID = lastEventIDBuffer
        defer {
            data.removeAll(keepingCapacity: data.count <= 64 * 1024)
            eventType.removeAll(keepingCapacity: true)
        }
        guard !data.isEmpty else { return }
        let type = eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self)
        let text = data.withUnsafeBytes { String(decoding: $0.dropLast(), as: UTF8.self) }
        events.append(ServerSentEvent(type: type, data: text, lastEventID: lastEventID))
    }

    /// The value as a base-ten integer if it is one or more ASCII digits and nothing else
    /// (saturating rather than overflowing).
    private static func digits(_ value: UnsafeRawBufferPointer) -> Int64? {
        guard !value.isEmpty else { return nil }
        var number: Int64 = 0
        for byte in value {
            guard (0x30...0x39).contains(byte) else { return nil }
            let (times, overflowed) = number.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times.addingReportingOverflow(Int64(byte - 0x30))
            number = overflowed || overflowedAgain ? .max : sum
        }
        return number
    }
}

private let colon: UInt8 = 0x3A
private let space: UInt8 = 0x20
private let lineFeed: UInt8 = 0x0A


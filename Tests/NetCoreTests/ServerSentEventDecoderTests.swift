import Foundation
import NetCore
import NetTestSupport
import Testing

/// The decoder against the WHATWG HTML standard's "Parsing an event stream" rules, its worked
/// examples, and an oracle transcribed from the standard's text (`WHATWGEventStreamOracle`).
@Suite("ServerSentEventDecoder")
struct ServerSentEventDecoderTests {
    private func events(_ text: String, chunks: [Int] = []) throws -> [ServerSentEvent] {
        try Self.events(Array(text.utf8), chunks: chunks)
    }

    private func events(_ bytes: [UInt8], chunks cuts: [Int] = []) throws -> [ServerSentEvent] {
        try Self.events(bytes, chunks: cuts)
    }

    /// Decodes `bytes` cut after each offset in `cuts`.
    private static func events(_ bytes: [UInt8], chunks cuts: [Int] = []) throws -> [ServerSentEvent] {
        var decoder = ServerSentEventDecoder()
        var found: [ServerSentEvent] = []
        var start = 0
        for cut in cuts.sorted() + [bytes.count] where cut >= start {
            try decoder.decode(Data(bytes[start..<cut]), into: &found)
            start = cut
        }
        return found
    }

    @Test("The standard's examples: multi-line data, comments, id reset, a trailing partial event, bare field names")
    func standardExamples() throws {
        #expect(try events("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEvent(data: "YHOO\n+2\n10")])
        #expect(try events(": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n") == [
            ServerSentEvent(data: "first event", lastEventID: "1"),
            ServerSentEvent(data: "second event", lastEventID: ""),
        ])
        #expect(try events("data\n\ndata\ndata\n\ndata:") == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
        #expect(try events("data:test\n\ndata: test\n\n") == [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    @Test("event names the type; the last event ID persists across events; an id containing NUL is ignored")
    func typeAndID() throws {
        let found = try events("event: add\nid: 7\ndata: a\n\ndata: b\n\nid: x\u{0}y\ndata: c\n\nevent: \ndata: d\n\n")
        #expect(found == [
            ServerSentEvent(type: "add", data: "a", lastEventID: "7"),
            ServerSentEvent(type: "message", data: "b", lastEventID: "7"),
            ServerSentEvent(type: "message", data: "c", lastEventID: "7"),
            ServerSentEvent(type: "message", data: "d", lastEventID: "7"),
        ])
        // An id in an event that is never dispatched still becomes the last event ID at the blank line.
        var decoder = ServerSentEventDecoder()
        #expect(try decoder.decode(Data("id: 9\n\n".utf8)).isEmpty)
        #expect(decoder.lastEventID == "9")
        #expect(try decoder.decode(Data("id: 10\ndata: x".utf8)).isEmpty)
        #expect(decoder.lastEventID == "9", "an id is the stream's only once its event is dispatched")
    }

    @Test("retry sets the reconnection time only when its value is ASCII digits")
    func retry() throws {
        for (field, expected) in [("retry: 1500", Duration.milliseconds(1500)), ("retry:0", .zero), ("retry: 15a", nil), ("retry: -1", nil),
                                  ("retry: +5", nil), ("retry:", nil), ("retry: 1.5", nil), ("retry: 99999999999999999999999", .milliseconds(Int64.max))] as [(String, Duration?)] {
            var decoder = ServerSentEventDecoder()
            _ = try decoder.decode(Data("\(field)\n\n".utf8))
            #expect(decoder.reconnectionTime == expected, "\(field)")
        }
    }

    @Test("One leading BOM is dropped, split across chunks or not; a second one is part of the line")
    func byteOrderMark() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = Array("data: x\n\n".utf8)
        for cut in 0...4 {
            #expect(try events(bom + body, chunks: [cut]) == [ServerSentEvent(data: "x")], "cut at \(cut)")
        }
        #expect(try events(bom + bom + body).isEmpty, "\u{FEFF}data is not the field data")
        #expect(try events([0xEF, 0xBB] + Array(": x\ndata: y\n\n".utf8)).count == 1, "a BOM's first bytes alone are the start of a field name")
    }

    @Test("CR, LF and CRLF all end lines; a CR ending one chunk and the LF starting the next are one break")
    func lineBreaks() throws {
        for text in ["data: a\ndata: b\n\n", "data: a\rdata: b\r\r", "data: a\r\ndata: b\r\n\r\n", "data: a\r\ndata: b\n\r"] {
            #expect(try events(text) == [ServerSentEvent(data: "a\nb")], "\(text.debugDescription)")
        }
        let text = "data: a\r\ndata: b\r\n\r\n"
        for cut in 0...text.utf8.count {
            #expect(try events(text, chunks: [cut]) == [ServerSentEvent(data: "a\nb")], "cut at \(cut)")
        }
    }

    @Test("A stream that ends mid-event drops it; bytes that are not UTF-8 become U+FFFD; a character cut across chunks is whole")
    func endsAndEncoding() throws {
        #expect(try events("data: kept\n\ndata: dropped\n").map(\.data) == ["kept"])
        #expect(try events(Array("data: a".utf8) + [0xFF, 0xC3] + Array("\n\n".utf8)).map(\.data) == ["a\u{FFFD}\u{FFFD}"])
        let text = "data: café 🎉\n\n"
        for cut in 0...text.utf8.count {
            #expect(try events(text, chunks: [cut]).map(\.data) == ["café 🎉"])
        }
    }

    @Test("A line longer than the limit throws lineTooLong after the events before it, without waiting for its end")
    func lineLimit() throws {
        var decoder = ServerSentEventDecoder(maximumLineLength: 16)
        var found: [ServerSentEvent] = []
        try decoder.decode(Data("data: 0123456789\n\n".utf8), into: &found)  // 16 bytes: at the limit
        #expect(found.map(\.data) == ["0123456789"])
        #expect(streamFailure(.lineTooLong(limit: 16)) {
            try decoder.decode(Data("data: ok\n\ndata: 01234567890".utf8), into: &found)
        })
        #expect(found.map(\.data) == ["0123456789", "ok"])
        #expect(streamFailure(.lineTooLong(limit: 16)) { _ = try decoder.decode(Data("\n\n".utf8)) })
        // Cut into one-byte chunks, the line is refused at its 17th byte, never held longer.
        var bytewise = ServerSentEventDecoder(maximumLineLength: 16)
        var refusedAt: Int?
        for (offset, byte) in Array("data: 01234567890123".utf8).enumerated() where refusedAt == nil {
            do { _ = try bytewise.decode(Data([byte])) } catch { refusedAt = offset }
        }
        #expect(refusedAt == 16)
    }

    @Test("An event whose data grows past the limit throws eventTooLarge")
    func eventLimit() throws {
        var decoder = ServerSentEventDecoder(maximumEventLength: 20)
        #expect(try decoder.decode(Data("data: 123456789\ndata: 123456789\n\n".utf8)).map(\.data) == ["123456789\n123456789"])
        #expect(streamFailure(.eventTooLarge(limit: 20)) {
            _ = try decoder.decode(Data(String(repeating: "data: 12345\n", count: 5).utf8))
        })
    }

    @Test("Random streams cut at random points: the same events as the whole stream, and as the standard's text (5,000 cases)")
    func randomChunking() async throws {
        // Half a second of parsing, off the two-thread cooperative pool (see `offPool`).
        let mismatches = try await offPool { () throws -> [String] in
            var random = SeededGenerator(seed: 0x55E)
            var mismatches: [String] = []
            for index in 0..<5_000 {
                let bytes = EventStreamGenerator.stream(using: &random)
                let whole = try Self.events(bytes)
                let reference = WHATWGEventStreamOracle.events(bytes).map { ServerSentEvent(type: $0.type, data: $0.data, lastEventID: $0.lastEventID) }
                if whole != reference {
                    mismatches.append("case \(index), against the standard: \(String(decoding: bytes, as: UTF8.self).debugDescription)")
                }
                let cuts = (0..<Int.random(in: 1...6, using: &random)).map { _ in Int.random(in: 0...bytes.count, using: &random) }
                if try Self.events(bytes, chunks: cuts) != whole { mismatches.append("case \(index), cut at \(cuts)") }
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }
}

/// Whether `body` threw ``NetworkError/stream(_:)`` with exactly `expected` (NetworkError is not
/// Equatable, so `#expect(throws:)` cannot compare it).
func streamFailure(_ expected: NetworkError.StreamFailure, _ body: () throws -> Void) -> Bool {
    do {
        try body()
        return false
    } catch NetworkError.stream(let failure) {
        return failure == expected
    } catch {
        return false
    }
}

import Foundation
import MatttEventSource
import NetCore
import Testing

/// Net's `ServerSentEventDecoder` against mattt/EventSource 1.1.1's parser, an implementation we
/// did not write: the same byte streams, cut into chunks at random for Net (the peer reads byte by
/// byte), must give the same events.
///
/// The random streams stay clear of the places where the peer departs from the WHATWG standard;
/// each of those has its own test below, which shows both outputs and says, by the standard's
/// text, which parser is wrong.
@Suite("Net's SSE decoder agrees with mattt/EventSource")
struct EventSourceParityTests {
    /// One event as both sides can report it: type (the peer's `nil` or empty is "message"),
    /// data, and the last event ID (the peer reports only the event's own `id`, so its running
    /// value is kept here, as the standard's "last event ID string").
    struct Seen: Equatable, CustomStringConvertible {
        let type: String
        let data: String
        let lastEventID: String
        var description: String { "(\(type.debugDescription), \(data.debugDescription), id \(lastEventID.debugDescription))" }
    }

    static func net(_ bytes: [UInt8], cuts: [Int]) throws -> [Seen] {
        var decoder = ServerSentEventDecoder()
        var events: [ServerSentEvent] = []
        var start = 0
        for cut in cuts.sorted() + [bytes.count] where cut >= start {
            try decoder.decode(Data(bytes[start..<cut]), into: &events)
            start = cut
        }
        return events.map { Seen(type: $0.type, data: $0.data, lastEventID: $0.lastEventID) }
    }

    static func peer(_ bytes: [UInt8]) async -> [Seen] {
        let parser = EventSource.Parser()
        var seen: [Seen] = []
        var lastEventID = ""
        func drain() async {
            while let event = await parser.getNextEvent() {
                lastEventID = event.id ?? lastEventID
                let type = event.event.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
                seen.append(Seen(type: type, data: event.data, lastEventID: lastEventID))
            }
        }
        for byte in bytes {
            await parser.consume(byte)
            await drain()
        }
        await parser.finish()
        await drain()
        return seen
    }

    @Test("10,000 random streams, cut at random for Net: the same events from both parsers")
    func parity() async throws {
        var random = SeededGenerator(seed: 0xE5E5)
        var compared = 0
        for index in 0..<10_000 {
            let bytes = ParityStreamGenerator.stream(using: &random)
            let cuts = (0..<Int.random(in: 0...8, using: &random)).map { _ in Int.random(in: 0...bytes.count, using: &random) }
            let ours = try Self.net(bytes, cuts: cuts)
            let theirs = await Self.peer(bytes)
            #expect(ours == theirs, "case \(index): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            compared += ours.count
        }
        #expect(compared > 20_000, "the streams carried too few events to compare")
    }

    // Where the two disagree. Each test proves the disagreement exists (so it would notice a
    // fixed peer) and that Net follows the standard.

    @Test("An event with no data line: the standard dispatches nothing (\"If the data buffer is an empty string … return\"); the peer is wrong")
    func eventWithoutData() async throws {
        let bytes = Array("event: ping\nid: 4\n\ndata: x\n\n".utf8)
        #expect(try Self.net(bytes, cuts: []) == [Seen(type: "message", data: "x", lastEventID: "4")])
        #expect(await Self.peer(bytes) == [Seen(type: "ping", data: "", lastEventID: "4"), Seen(type: "message", data: "x", lastEventID: "4")])
    }

    @Test("A stream that ends mid-event: the standard discards it (\"the incomplete event is not dispatched\"); the peer is wrong")
    func partialEventAtEnd() async throws {
        let bytes = Array("data: kept\n\ndata: cut".utf8)
        #expect(try Self.net(bytes, cuts: []).map(\.data) == ["kept"])
        #expect(await Self.peer(bytes).map(\.data) == ["kept", "cut"])
    }

    @Test("An empty data line before another: the standard keeps its line feed (\"append … a single U+000A\"); the peer is wrong")
    func emptyFirstDataLine() async throws {
        let bytes = Array("data\ndata: x\n\n".utf8)
        #expect(try Self.net(bytes, cuts: []).map(\.data) == ["\nx"])
        #expect(await Self.peer(bytes).map(\.data) == ["x"])
    }

    @Test("A BOM after the first line: the standard strips one, at the stream's start only; the peer is wrong")
    func laterByteOrderMark() async throws {
        let bytes = Array("data: a\n\n\u{FEFF}data: b\n\n".utf8)
        #expect(try Self.net(bytes, cuts: []).map(\.data) == ["a"])
        #expect(await Self.peer(bytes).map(\.data) == ["a", "b"])
    }

    @Test("retry: 0 and retry: +5: the standard takes ASCII digits only, zero included; the peer is wrong on both")
    func retryDigits() async throws {
        var decoder = ServerSentEventDecoder()
        _ = try decoder.decode(Data("retry: 0\n\n".utf8))
        #expect(decoder.reconnectionTime == .zero)
        var plus = ServerSentEventDecoder()
        _ = try plus.decode(Data("retry: +5\n\n".utf8))
        #expect(plus.reconnectionTime == nil)
        for (field, peerTime) in [("retry: 0", 3_000), ("retry: +5", 5)] {
            let parser = EventSource.Parser()
            for byte in Array("\(field)\n\n".utf8) { await parser.consume(byte) }
            #expect(await parser.getReconnectionTime() == peerTime, "\(field)")
        }
    }

    @Test("A colon followed by a combining mark: the standard splits on the code point U+003A; the peer splits grapheme clusters and is wrong")
    func combiningMarkAfterColon() async throws {
        let bytes = Array("data:\u{301}x\n\n".utf8)
        #expect(try Self.net(bytes, cuts: []).map(\.data) == ["\u{301}x"])
        #expect(await Self.peer(bytes).isEmpty)
    }
}

/// Random streams inside the common ground of the two parsers: events that each carry a data line
/// with a value; other fields, comments, unknown fields and every line break around them; values
/// with colons, spaces, NUL, non-ASCII and bytes that are not UTF-8; a BOM at the start only; and
/// a blank line at the end.
enum ParityStreamGenerator {
    static let values: [[UInt8]] = [
        Array("x".utf8), Array(" spaced ".utf8), Array("a:b: c".utf8), Array("1500".utf8), Array("é🎉".utf8), [0x00],
        Array("id\u{0}nul".utf8), [0xFF], [0xC3], [0xE2, 0x82], Array("update".utf8), Array(String(repeating: "long", count: 30).utf8),
    ]

    static func stream(using random: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = Int.random(in: 0..<6, using: &random) == 0 ? [0xEF, 0xBB, 0xBF] : []
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            var lines: [[UInt8]] = [Array("data: ".utf8) + value(using: &random)]
            for _ in 0..<Int.random(in: 0...4, using: &random) { lines.append(field(using: &random)) }
            lines.shuffle(using: &random)
            for line in lines { bytes += line + lineBreak(using: &random) }
            bytes += lineBreak(using: &random)
        }
        // A CR before it would make one LF part of a CRLF: two make sure the last event is ended.
        return bytes + [0x0A, 0x0A]
    }

    private static func value(using random: inout SeededGenerator) -> [UInt8] {
        (0..<Int.random(in: 1...2, using: &random)).flatMap { _ in values.randomElement(using: &random)! }
    }

    private static func field(using random: inout SeededGenerator) -> [UInt8] {
        switch Int.random(in: 0..<7, using: &random) {
        case 0: return Array("data:".utf8) + value(using: &random)
        case 1: return Array("event: ".utf8) + value(using: &random)
        case 2: return Array(["id: ", "id:", "id"].randomElement(using: &random)!.utf8) + (Bool.random(using: &random) ? value(using: &random) : [])
        case 3: return Array("retry: ".utf8) + value(using: &random)
        case 4: return Array(":".utf8) + value(using: &random)
        case 5: return Array(["dat: ", "DATA: ", "data : ", "x"].randomElement(using: &random)!.utf8) + value(using: &random)
        default: return Array("event".utf8)
        }
    }

    private static func lineBreak(using random: inout SeededGenerator) -> [UInt8] {
        [[0x0A], [0x0D], [0x0D, 0x0A]].randomElement(using: &random)!
    }
}

import Foundation
import NetCore
import NetTestSupport
import Testing

@Suite("JSON Lines")
struct JSONLinesTests {
    struct Entry: Codable, Equatable { let n: Int; let text: String }

    @Test("One value per line: LF or CRLF, blank lines skipped, a last line without a break decoded")
    func values() throws {
        var decoder = JSONLinesDecoder<Entry>()
        var values = try decoder.decode(Data("{\"n\":1,\"text\":\"a\"}\r\n\n  \n{\"n\":2,\"text\":\"b\"}\n{\"n\":3,".utf8))
        #expect(values == [Entry(n: 1, text: "a"), Entry(n: 2, text: "b")])
        values += try decoder.decode(Data("\"text\":\"c\"}".utf8))
        #expect(try decoder.finish() == Entry(n: 3, text: "c"))
        #expect(try decoder.finish() == nil)
    }

    @Test("A line that does not decode names its number (blank lines counted) and shows its start")
    func decodingError() throws {
        var decoder = JSONLinesDecoder<Entry>()
        var values: [Entry] = []
        let error = try #require(throws: NetworkError.self) {
            try decoder.decode(Data("{\"n\":1,\"text\":\"a\"}\n\n{\"n\":\"two\",\"text\":\"b\"}\n{\"n\":3,\"text\":\"c\"}\n".utf8), into: &values)
        }
        #expect(values == [Entry(n: 1, text: "a")])
        guard case .stream(.undecodableLine(let number, let excerpt, let reason)) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(number == 3 && excerpt == "{\"n\":\"two\",\"text\":\"b\"}" && reason.hasPrefix("n:"), "\(reason)")
        #expect("\(error)".contains("line 3"))
        let long = String(repeating: "x", count: 500)
        var second = JSONLinesDecoder<Entry>()
        let truncated = try #require(throws: NetworkError.self) { _ = try second.decode(Data("\(long)\n".utf8)) }
        guard case .stream(.undecodableLine(1, let shown, _)) = truncated else { Issue.record("\(truncated)"); return }
        #expect(shown.count == 120)
    }

    @Test("A line longer than the limit throws lineTooLong before it is held whole")
    func lineLimit() throws {
        var decoder = JSONLinesDecoder<Entry>(maximumLineLength: 64)
        #expect(streamFailure(.lineTooLong(limit: 64)) {
            for _ in 0..<100 { _ = try decoder.decode(Data(String(repeating: " ", count: 10).utf8)) }
        })
        // Fed a byte at a time: a line of 64 bytes is held and decoded, the 65th byte throws.
        let atLimit = Array(#"{"n":1,"text":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 47) + Array(#""}"#.utf8)
        #expect(atLimit.count == 64)
        var exact = JSONLinesDecoder<Entry>(maximumLineLength: 64)
        for byte in atLimit { #expect(try exact.decode(Data([byte])).isEmpty) }
        #expect(try exact.decode(Data([UInt8(ascii: "\n")])) == [Entry(n: 1, text: String(repeating: "a", count: 47))])
        var over = JSONLinesDecoder<Entry>(maximumLineLength: 64)
        for byte in atLimit { _ = try over.decode(Data([byte])) }
        #expect(streamFailure(.lineTooLong(limit: 64)) { _ = try over.decode(Data([UInt8(ascii: " ")])) })
    }

    @Test("As a sequence over chunks cut anywhere: the same values")
    func sequence() async throws {
        let text = (1...50).map { "{\"n\":\($0),\"text\":\"é\($0)\"}" }.joined(separator: "\n")
        let bytes = Array(text.utf8)
        var random = SeededGenerator(seed: 7)
        for _ in 0..<50 {
            let cuts = (0..<5).map { _ in Int.random(in: 0...bytes.count, using: &random) }.sorted()
            var chunks: [Data] = []
            var start = 0
            for cut in cuts + [bytes.count] { chunks.append(Data(bytes[start..<cut])); start = cut }
            var found: [Entry] = []
            for try await entry in AsyncChunks(chunks).jsonLines(of: Entry.self) { found.append(entry) }
            #expect(found == (1...50).map { Entry(n: $0, text: "é\($0)") })
        }
    }
}

/// Chunks as an async sequence, as a response body delivers them.
struct AsyncChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: [Data]
    init(_ chunks: [Data]) { self.chunks = chunks }
    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<Data>
        mutating func next() async throws -> Data? { rest.popFirst() }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...]) }
}

import Foundation
import NetCore
import Testing

/// The default limits SECURITY.md and Docs/Streaming.md state for the stream readers, met through
/// the sequences' default arguments, as a caller who sets none meets them: 1 MiB per line for
/// Server-Sent Events and JSON Lines, 4 MiB of data per event.
@Suite("The stream readers' default limits")
struct StreamLimitDefaultsTests {
    struct Entry: Decodable { let n: Int }

    /// The error `sequence` ends with when read to its end (`nil` if it ends without one).
    static func failure<S: AsyncSequence>(of sequence: S) async -> NetworkError.StreamFailure? {
        do {
            for try await _ in sequence {}
            return nil
        } catch let error as NetworkError {
            guard case .stream(let failure) = error else {
                Issue.record("not a stream failure: \(error)")
                return nil
            }
            return failure
        } catch {
            Issue.record("not a stream failure: \(error)")
            return nil
        }
    }

    static let mebibyte = 1 << 20

    @Test("JSON Lines: a line of 1 MiB is read, one byte more is lineTooLong(1 MiB)")
    func jsonLinesLine() async throws {
        let padded = { (length: Int) in Data(Array(#"{"n":1}"#.utf8) + repeatElement(UInt8(ascii: " "), count: length - 7)) }
        var values = 0
        for try await _ in AsyncChunks([padded(Self.mebibyte), Data("\n".utf8)]).jsonLines(of: Entry.self) { values += 1 }
        #expect(values == 1)
        #expect(await Self.failure(of: AsyncChunks([padded(Self.mebibyte + 1), Data("\n".utf8)]).jsonLines(of: Entry.self))
                == .lineTooLong(limit: Self.mebibyte))
    }

    @Test("Server-Sent Events: a line of 1 MiB is read, one byte more is lineTooLong(1 MiB)")
    func serverSentEventLine() async throws {
        let line = { (length: Int) in Data(Array("data: ".utf8) + repeatElement(UInt8(ascii: "x"), count: length - 6) + Array("\n\n".utf8)) }
        var events = 0
        for try await _ in AsyncChunks([line(Self.mebibyte)]).serverSentEvents() { events += 1 }
        #expect(events == 1)
        #expect(await Self.failure(of: AsyncChunks([line(Self.mebibyte + 1)]).serverSentEvents()) == .lineTooLong(limit: Self.mebibyte))
    }

    @Test("Server-Sent Events: an event's data past 4 MiB, in lines under the line limit, is eventTooLarge(4 MiB)")
    func serverSentEventData() async throws {
        // Five `data:` lines of 1,000,000 bytes: about 4.77 MiB of data in one event.
        let line = Data(Array("data: ".utf8) + repeatElement(UInt8(ascii: "x"), count: 1_000_000) + Array("\n".utf8))
        let four = AsyncChunks(Array(repeating: line, count: 4) + [Data("\n".utf8)])
        var events = 0
        for try await _ in four.serverSentEvents() { events += 1 }
        #expect(events == 1, "four lines, about 3.8 MiB, are one event")
        let five = AsyncChunks(Array(repeating: line, count: 5) + [Data("\n".utf8)])
        #expect(await Self.failure(of: five.serverSentEvents()) == .eventTooLarge(limit: 4 << 20))
    }
}

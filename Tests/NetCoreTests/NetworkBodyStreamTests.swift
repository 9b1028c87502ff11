import Foundation
import NetCore
import Testing

@Suite("NetworkBodyStream")
struct NetworkBodyStreamTests {
    private func drain(_ stream: NetworkBodyStream) async throws -> Data {
        var reader = stream.makeReader()
        var collected = Data()
        while let chunk = try await reader.next() { collected.append(chunk) }
        return collected
    }

    @Test("Each reader replays the body from the start, as retries and 307/308 need")
    func replayable() async throws {
        let stream = NetworkBodyStream(chunks: [Data("hello ".utf8), Data(), Data("world".utf8)])
        #expect(stream.length == 11)
        #expect(try await drain(stream) == Data("hello world".utf8))
        #expect(try await drain(stream) == Data("hello world".utf8))
    }

    @Test("Unknown length streams are read to their end")
    func unknownLength() async throws {
        let stream = NetworkBodyStream(length: nil) {
            AsyncStream { continuation in
                for index in 0..<100 { continuation.yield(Data(repeating: UInt8(index), count: 10)) }
                continuation.finish()
            }
        }
        #expect(try await drain(stream).count == 1000)
    }

    @Test("A source longer or shorter than declared is a typed error, never a silent truncation", arguments: [(5, 11), (20, 11)])
    func lengthMismatch(declared: Int64, actual: Int64) async throws {
        let stream = NetworkBodyStream(length: declared) {
            AsyncStream { continuation in
                continuation.yield(Data("hello ".utf8))
                continuation.yield(Data("world".utf8))
                continuation.finish()
            }
        }
        do {
            _ = try await drain(stream)
            Issue.record("a length mismatch must throw")
        } catch NetworkError.request(.bodyLengthMismatch(let expected, let produced)) {
            #expect(expected == declared)
            #expect(produced == (declared < actual ? 6 : actual))
        }
    }

    @Test("Errors from the source reach the reader")
    func sourceErrors() async throws {
        struct SourceFailed: Error {}
        let stream = NetworkBodyStream(length: nil) {
            AsyncThrowingStream<Data, any Error> { continuation in
                continuation.yield(Data([1]))
                continuation.finish(throwing: SourceFailed())
            }
        }
        await #expect(throws: SourceFailed.self) { try await drain(stream) }
    }
}

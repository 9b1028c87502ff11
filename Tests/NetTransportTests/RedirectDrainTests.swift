import Foundation
import NetCore
import NetTestSupport
import Synchronization
@testable import NetTransport
import Testing

/// What the redirect stage reads of a 3xx body before it follows the redirect: a short body to its
/// end (so its connection can be reused), a long one until it has passed 64 KiB, so by at most one
/// chunk (so a hostile server cannot make a redirect read without end). Counted by the chunks the
/// body hands out.
@Suite("The redirect stage reads a 3xx body no further than 64 KiB and one chunk")
struct RedirectDrainTests {
    @Test("an endless 3xx body is read no further than 64 KiB and one chunk, and the redirect is followed")
    func endlessBodyIsDropped() async throws {
        let transport = RedirectingTransport(redirectBodyChunks: nil)
        let client = NetworkClient(transport: transport, timeout: TestTiming.hangGuard)
        let response = try await client.requestData(for: "https://host/moved")
        #expect(response.statusCode == 200 && response.response.url.path == "/next")
        let pulled = transport.pulledBytes
        #expect(pulled >= RedirectStage.drainLimit && pulled <= RedirectStage.drainLimit + RedirectingTransport.chunkSize,
                "\(pulled) bytes of the 3xx body read")
        #expect(!transport.redirectBodyEnded)
    }

    @Test("a 3xx body shorter than 64 KiB is read to its end before the redirect is followed")
    func shortBodyIsReadToItsEnd() async throws {
        let transport = RedirectingTransport(redirectBodyChunks: 3)
        let client = NetworkClient(transport: transport, timeout: TestTiming.hangGuard)
        #expect(try await client.requestData(for: "https://host/moved").statusCode == 200)
        #expect(transport.pulledBytes == 3 * RedirectingTransport.chunkSize && transport.redirectBodyEnded)
    }
}

/// Answers its first request with a 302 to `/next` whose body is `redirectBodyChunks` chunks of
/// 16 KiB (endless when `nil`), counting what is read of it, and every later one with a 200.
private final class RedirectingTransport: Transport {
    static let chunkSize = 16 << 10
    private struct Reading {
        var pulledBytes = 0
        var ended = false
        var exchanges = 0
    }

    private let redirectBodyChunks: Int?
    private let reading = Mutex(Reading())

    init(redirectBodyChunks: Int?) { self.redirectBodyChunks = redirectBodyChunks }

    var pulledBytes: Int { reading.withLock { $0.pulledBytes } }
    var redirectBodyEnded: Bool { reading.withLock { $0.ended } }

    func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        let first = reading.withLock { reading -> Bool in
            reading.exchanges += 1
            return reading.exchanges == 1
        }
        guard first else {
            return NetworkStreamResponse(response: NetworkResponseHead(statusCode: 200, url: request.url),
                                         body: NetworkResponseBody(Data("done".utf8)), originalRequest: request)
        }
        var headers = NetworkHeaders()
        try headers.set(name: "Location", value: "/next")
        let chunks = CountedChunks(limit: redirectBodyChunks) { [self] event in
            reading.withLock { reading in
                switch event {
                case .chunk(let size): reading.pulledBytes += size
                case .end: reading.ended = true
                }
            }
        }
        return NetworkStreamResponse(response: NetworkResponseHead(statusCode: 302, headers: headers, url: request.url),
                                     body: NetworkResponseBody(chunks), originalRequest: request)
    }
}

/// `limit` chunks of `RedirectingTransport.chunkSize` bytes (endless when `nil`), each handed out
/// reported to `record`, and the end too.
private struct CountedChunks: AsyncSequence, Sendable {
    enum Event { case chunk(Int), end }
    typealias Element = Data
    let limit: Int?
    let record: @Sendable (Event) -> Void

    struct Iterator: AsyncIteratorProtocol {
        let limit: Int?
        let record: @Sendable (Event) -> Void
        var handedOut = 0

        mutating func next() async throws -> Data? {
            if let limit, handedOut == limit {
                record(.end)
                return nil
            }
            handedOut += 1
            record(.chunk(RedirectingTransport.chunkSize))
            return Data(count: RedirectingTransport.chunkSize)
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(limit: limit, record: record) }
}

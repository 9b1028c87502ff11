#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetTestSupport
import NetTransport
import Synchronization
import Testing

/// An exchange on AsyncHTTPClient's delegate API is sent by `ExchangeDelegate.start`, which
/// AsyncHTTPClientTransport runs on the home event loop a turn after the call began: a call given
/// up in between must not reach the server.
@Suite("ExchangeDelegate: a call given up before its send is not sent")
struct ExchangeDelegateTests {
    @Test("cancelled before its send: nothing is sent, the caller gets CancellationError, the exchange is no longer counted")
    func cancelledBeforeSend() async throws {
        let affinity = LoopAffinity(group: HTTPClient.defaultEventLoopGroup)
        #expect(affinity.starting() === affinity.home)
        let exchange = ExchangeDelegate(record: nil, sentWhole: nil, affinity: affinity, counted: .readWhole)
        exchange.cancel()
        #expect(try await Self.start(exchange, on: .indifferent) == 0, "a cancelled exchange was sent")
        await #expect(throws: CancellationError.self) { try await exchange.head() }
        #expect(affinity.exchangesInFlightByCount == (readWhole: 0, other: 0))
    }

    @Test("not cancelled: sent once, and ended by the server's answer")
    func sentWhenNotCancelled() async throws {
        let affinity = LoopAffinity(group: HTTPClient.defaultEventLoopGroup)
        #expect(affinity.starting() === affinity.home)
        let exchange = ExchangeDelegate(record: nil, sentWhole: nil, affinity: affinity, counted: .readWhole)
        #expect(try await Self.start(exchange, on: .delegate(on: affinity.home)) == 1)
        #expect(try await exchange.head().status == .ok)
        #expect(await eventually(within: TestTiming.hangGuard) { affinity.exchangesInFlightByCount == (readWhole: 0, other: 0) })
    }

    /// Starts `exchange` as a GET of the conformance server's `/status/200` on `HTTPClient.shared`
    /// (never shut down); returns how many times its send ran.
    private static func start(_ exchange: ExchangeDelegate, on loop: HTTPClient.EventLoopPreference) async throws -> Int {
        let server = try await ConformanceServer.shared.baseURL()
        let request = try HTTPClient.Request(url: server.appendingPathComponent("status/200"))
        let sends = SendCount()
        exchange.start {
            sends.add()
            return HTTPClient.shared.execute(request: request, delegate: exchange, eventLoop: loop, deadline: nil)
        }
        return sends.value
    }
}

/// How many times a send closure ran.
private final class SendCount: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
#endif

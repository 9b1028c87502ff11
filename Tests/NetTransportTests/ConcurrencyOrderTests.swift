import Foundation
import NetCore
import NetTestSupport
@testable import NetTransport
import Testing

/// Docs/Sessions.md's concurrency limit: waiting requests go in arrival order, and a retry's
/// backoff does not hold a slot.
@Suite("NetworkClient: the concurrency limit's queue")
struct ConcurrencyOrderTests {
    @Test("with one slot, requests that queue behind a held one reach the transport in the order they queued")
    func arrivalOrder() async throws {
        let released = LockedBox(false)
        let stub = StubTransport { request in
            if request.url.path == "/hold" {
                while !released.read() { try await Task.sleep(for: .milliseconds(1)) }
            }
            return .status(.ok)
        }
        let limited = ConcurrencyLimitedTransport(stub, maximumConcurrentRequests: 1)
        let first = Task { try await limited.send(try NetworkRequest(url: "https://host/hold", timeout: .seconds(3600))) }
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { stub.requests.count == 1 })
        var queued: [Task<TransportResponse, any Error>] = []
        for index in 1...5 {
            queued.append(Task { try await limited.send(try NetworkRequest(url: "https://host/q\(index)", timeout: .seconds(3600))) })
            // The next joins the line only once this one is in it: their order is known.
            try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { limited.waitingCount == index })
        }
        released.mutate { $0 = true }
        _ = try await first.value
        for task in queued { _ = try await task.value }
        #expect(stub.requests.map(\.request.url.path) == ["/hold", "/q1", "/q2", "/q3", "/q4", "/q5"])
    }

    @Test("a request waiting out a retry's backoff holds no slot: another request completes meanwhile", .timeLimit(.minutes(3)))
    func backoffHoldsNoSlot() async throws {
        let stub = StubTransport()
        stub.on(.get, "/busy", respond: .status(503))
        stub.on(.get, "/ok", respond: .text("ok"))
        let clock = ManualClock()
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(maximumRetries: 1, baseDelay: .seconds(30), jitter: 0)],
                                   maximumConcurrentRequests: 1, clock: clock)
        let busy = Task { try await client.requestData(for: "https://host/busy") }
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { clock.pendingDelays.contains(.seconds(30)) })
        // The backoff is on the manual clock, which nothing moves yet: were the slot held through
        // it, this call would wait for ever (its deadline is on the same clock).
        #expect(try await client.requestData(for: "https://host/ok").statusCode == 200)
        clock.advance(by: .seconds(30))
        #expect(try await busy.value.statusCode == 503)
        #expect(stub.requests.map(\.request.url.path) == ["/busy", "/ok", "/busy"])
    }
}

import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Synchronization
import Testing

/// Time as logic, on an injected clock: the call deadline, the retry backoff and the
/// authentication refresh window move only when the test advances a `ManualClock`, so these
/// checks never sleep and cannot flake on a busy machine.
/// A count shared with a stub's handler.
private final class Tally: Sendable {
    private let count = Mutex(0)
    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    var value: Int { count.withLock { $0 } }
}

@Suite("The session's clock: deadlines, backoff and refresh windows without real waiting")
struct SessionClockTests {
    /// A stub whose exchange waits (on real time, cancellable) far longer than any test runs.
    static func hangingStub() -> StubTransport {
        StubTransport { _ in
            try await Task.sleep(for: .seconds(3_600))
            return .status(.ok)
        }
    }

    @Test("the call deadline fires when the session's clock reaches it, not before")
    func deadline() async throws {
        let clock = ManualClock()
        let client = NetworkClient(transport: Self.hangingStub(), timeout: .seconds(30), clock: clock)
        let finished = Tally()
        let call = Task {
            defer { _ = finished.increment() }
            return try await client.requestData(for: "https://example.com/slow")
        }
        await clock.sleeps(atLeast: 1)  // the deadline is armed
        clock.advance(by: .seconds(29))
        // Not fired a moment early: the deadline's sleep is still waiting, with 1 s left (a
        // yield alone would not show a deadline that fired early, the call ending on another
        // thread later).
        #expect(clock.pendingDelays == [.seconds(1)])
        #expect(finished.value == 0)
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: NetworkError.self) { _ = try await call.value }
        guard case .transport(.timedOut(let message))? = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(message.contains("30"))
    }

    @Test("a per-attempt timeout fails the attempt, which the retry policy retries within the call's deadline")
    func attemptTimeout() async throws {
        let clock = ManualClock()
        let attempts = Tally()
        let stub = StubTransport { _ in
            if attempts.increment() == 1 { try await Task.sleep(for: .seconds(3_600)) }
            return .text("second")
        }
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(baseDelay: .zero, jitter: 0)],
                                   timeout: .seconds(60), attemptTimeout: .seconds(5), clock: clock)
        let call = Task { try await client.requestData(for: "https://example.com/x") }
        await clock.sleeps(atLeast: 1)
        clock.advance(by: .seconds(5))
        let response = try await call.value
        #expect(String(decoding: response.data, as: UTF8.self) == "second" && attempts.value == 2)
    }

    @Test("the retry backoff waits on the session's clock", .timeLimit(.minutes(3)))
    func backoff() async throws {
        let clock = ManualClock()
        let stub = StubTransport()
        stub.on(.get, "/flaky", respond: .status(.serviceUnavailable), .text("ok"))
        let client = NetworkClient(
            transport: stub, interceptors: [RetryPolicy(baseDelay: .seconds(600), jitter: 0)],
            timeout: .seconds(3_600), clock: clock)
        let call = Task { try await client.requestData(for: "https://example.com/flaky") }
        await clock.sleeps(atLeast: 2)  // the first attempt's deadline, then the backoff
        #expect(stub.requests.count == 1)
        clock.advance(by: .seconds(600))
        #expect(try await call.value.statusCode == .ok)
        #expect(stub.requests.count == 2)
    }

    @Test("the authentication refresh window is measured on the session's clock")
    func refreshWindow() async throws {
        let clock = ManualClock()
        let auth = AuthenticationInterceptor<Int>(
            credential: 0, refreshWindow: RefreshWindow(interval: .seconds(30), maximumRefreshes: 2),
            header: { .header(key: "Authorization", value: "Bearer \($0)") }, refresh: { ($0 ?? 0) + 1 })
        let client = NetworkClient(transport: StubTransport(fallback: .status(.unauthorized)), interceptors: [auth], clock: clock)
        func expectExcessiveRefresh() async {
            await #expect(throws: AuthenticationError.self) { _ = try await client.requestData(for: "https://example.com/me") }
        }
        await expectExcessiveRefresh()
        #expect(await auth.refreshCount() == 2)
        await expectExcessiveRefresh()
        #expect(await auth.refreshCount() == 2, "still inside the window: no refresh")
        clock.advance(by: .seconds(31))
        await expectExcessiveRefresh()
        #expect(await auth.refreshCount() == 4, "the window has passed on the session's clock")
    }
}

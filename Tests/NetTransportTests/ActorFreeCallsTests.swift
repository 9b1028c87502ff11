import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Synchronization
import Testing

extension NetworkClient {
    /// Runs on the client's actor and blocks it until `release` is signalled or `limit` passes:
    /// true if released. Fires `entered` once it holds the actor.
    ///
    /// It blocks one of the two threads of Swift's cooperative pool too (a task's executor
    /// preference does not move a default actor's code off the pool: tried, 2026-12-02): for as
    /// long as the calls take to finish, or, when they wait for the actor, until `limit`.
    fileprivate func hold(entered: AsyncSignal, until release: DispatchSemaphore, within limit: Duration) -> Bool {
        entered.fire()
        return release.wait(timeout: .now() + Double(limit.components.seconds)) == .success
    }
}

/// Docs/Architecture.md, "Where a call runs": a call visits its session's actor once, at its
/// start, so calls in flight do not queue on it. Proved by holding the actor while 64 calls
/// finish, each after a retry: a call that needed the actor would wait until the hold ends.
@Suite("Calls in flight do not need the client's actor")
struct ActorFreeCallsTests {
    /// The 64 first attempts, counted as they arrive.
    private final class Arrivals: Sendable {
        private let seen = Mutex<Set<String>>([])
        /// Whether `path` is new, and how many paths have arrived.
        func record(_ path: String) -> (first: Bool, count: Int) {
            seen.withLock { seen in (seen.insert(path).inserted, seen.count) }
        }
    }

    @Test("64 calls finish, each after a retry, while the client's actor is held", .timeLimit(.minutes(5)))
    func callsFinishWhileTheActorIsHeld() async throws {
        let calls = 64
        let (arrivals, allArrived, answer) = (Arrivals(), AsyncSignal(), AsyncSignal())
        let stub = StubTransport { request in
            let arrival = arrivals.record(request.url.path)
            guard arrival.first else { return .text("second") }  // the retry
            if arrival.count == calls { allArrived.fire() }
            await answer.wait()
            return .status(.serviceUnavailable)
        }
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(baseDelay: .zero, jitter: 0)],
                                   timeout: TestTiming.hangGuard)
        let started = (0..<calls).map { index in
            Task { try await client.requestData(for: "https://example.com/call/\(index)") }
        }
        await allArrived.wait()  // every call is past its start

        let (entered, release) = (AsyncSignal(), DispatchSemaphore(value: 0))
        let hold = Task {
            await client.hold(entered: entered, until: release, within: TestTiming.hangGuard)
        }
        await entered.wait()
        answer.fire()
        for call in started {
            let response = try await call.value
            #expect(String(decoding: response.data, as: UTF8.self) == "second")
        }
        release.signal()
        // Not released means the calls finished only when the hold timed out: they waited for it.
        #expect(await hold.value, "the calls waited for the client's actor")
        #expect(stub.requests.count == 2 * calls)
    }
}

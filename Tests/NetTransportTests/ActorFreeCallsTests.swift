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
    /// preference does not move a default actor's code off the pool: tried, 2026-12-02), which is
    /// why the check runs in a process of its own.
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
    func callsFinishWhileTheActorIsHeld() async {
        // In a process of its own (an exit test): the hold blocks a thread of the cooperative
        // pool, which would slow every other check running beside it.
        await #expect(processExitsWith: .success) {
            let failure = await ActorFreeCallsTests.holdWhileCallsFinish()
            if let failure {
                FileHandle.standardError.write(Data("\(failure)\n".utf8))
                exit(EXIT_FAILURE)
            }
        }
    }

    /// Starts 64 calls, holds the client's actor once every one has reached the transport, then
    /// lets them finish; nil if they all did while the actor was held, else what went wrong.
    static func holdWhileCallsFinish() async -> String? {
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

        // Bounded below the check's time limit, even under a sanitizer's scale: a call that waits
        // for the actor makes the hold run out, and the check fail.
        let (entered, release) = (AsyncSignal(), DispatchSemaphore(value: 0))
        let hold = Task { await client.hold(entered: entered, until: release, within: TestTiming.scaled(.seconds(20))) }
        await entered.wait()
        answer.fire()
        var bodies: [String] = []
        for call in started {
            guard let response = try? await call.value else { return "a call failed" }
            bodies.append(String(decoding: response.data, as: UTF8.self))
        }
        release.signal()
        guard await hold.value else { return "the calls finished only once the hold ran out: they waited for the client's actor" }
        guard bodies == Array(repeating: "second", count: calls), stub.requests.count == 2 * calls else {
            return "bodies \(Set(bodies)), \(stub.requests.count) requests"
        }
        return nil
    }
}

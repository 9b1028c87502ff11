import Foundation
import NetCore
import NetTestSupport
@testable import NetTransport
import Synchronization
import Testing

/// What the deadline's alarm cancels, counting how often.
private final class CountingCanceller: CancellableAttempt {
    private let count = Mutex(0)
    func cancel() { count.withLock { $0 += 1 } }
    var cancellations: Int { count.withLock { $0 } }
}

/// One exchange's wait, as an exchange that stops on the deadline by itself makes it: attached to
/// the attempt's alarm, it ends with `CancellationError` when the alarm or the exchange's own task
/// cancels it, and tells the test when it starts waiting.
private final class Gate: CancellableAttempt {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var cancelledByAlarm = false
        var taskWasCancelledThen = false
        var closed = false
    }

    private let state = Mutex(State())
    private let waiting: AsyncSignal

    init(waiting: AsyncSignal) {
        self.waiting = waiting
    }

    /// Called by the alarm (never by the task: see `wait`).
    func cancel() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.cancelledByAlarm = true
            state.closed = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    private func close() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.closed = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// Waits until cancelled; records whether the waiting task itself was cancelled at that point.
    func wait() async throws {
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let closed = state.withLock { state -> Bool in
                        if !state.closed { state.continuation = continuation }
                        return state.closed
                    }
                    if closed { continuation.resume(throwing: CancellationError()) } else { waiting.fire() }
                }
            } onCancel: {
                close()
            }
        } catch {
            state.withLock { $0.taskWasCancelledThen = Task.isCancelled }
            throw error
        }
    }

    var cancelledByAlarm: Bool { state.withLock { $0.cancelledByAlarm } }
    var taskWasCancelledThen: Bool { state.withLock { $0.taskWasCancelledThen } }
}

/// A transport whose exchanges stop on the deadline by themselves, as AsyncHTTPClientTransport's
/// delegate exchanges do: each attaches a ``Gate`` to the attempt's alarm (``InlineAttempt``) and
/// waits on it for the head or, with `redirectFirst`, answers the first request with a 302 whose
/// body waits on the gate.
private final class GatedTransport: DeadlineStoppableTransport {
    private struct Record {
        var gates: [Gate] = []
        var boundAlarms: [Bool] = []
    }

    let waiting = AsyncSignal()
    private let redirectFirst: Bool
    private let waitsOnlyFirst: Bool
    private let record = Mutex(Record())

    /// `waitsOnlyFirst`: exchanges after the first answer 200 at once.
    init(redirectFirst: Bool = false, waitsOnlyFirst: Bool = false) {
        self.redirectFirst = redirectFirst
        self.waitsOnlyFirst = waitsOnlyFirst
    }

    func stopsExchangesOnDeadline(_ request: NetworkRequest) -> Bool { true }

    func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        let gate = Gate(waiting: waiting)
        let number = record.withLock { record -> Int in
            record.gates.append(gate)
            record.boundAlarms.append(InlineAttempt.alarm != nil)
            return record.gates.count
        }
        InlineAttempt.attach(gate)
        if redirectFirst && number == 1 {
            var headers = NetworkHeaders()
            try headers.set(name: "Location", value: "/next")
            let body = NetworkResponseBody(GateBody(gate: gate))
            return NetworkStreamResponse(response: NetworkResponseHead(statusCode: 302, headers: headers, url: request.url),
                                         body: body, originalRequest: request)
        }
        if number == 1 || !waitsOnlyFirst { try await gate.wait() }
        return NetworkStreamResponse(response: NetworkResponseHead(statusCode: 200, url: request.url),
                                     body: NetworkResponseBody(Data()), originalRequest: request)
    }

    var gates: [Gate] { record.withLock { $0.gates } }
    var boundAlarms: [Bool] { record.withLock { $0.boundAlarms } }
}

/// A body that waits on its exchange's gate: it ends only when the exchange is cancelled.
private struct GateBody: AsyncSequence, Sendable {
    typealias Element = Data
    let gate: Gate

    struct Iterator: AsyncIteratorProtocol {
        let gate: Gate
        mutating func next() async throws -> Data? {
            try await gate.wait()
            return nil
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(gate: gate) }
}

/// `call`'s value, the call cancelled if it has not ended within `limit` (10 s, scaled): a deadline
/// or a cancellation that does not reach the exchange fails the test instead of hanging it.
private func value<T: Sendable>(of call: Task<T, any Error>, within limit: Duration = TestTiming.scaled(.seconds(10))) async throws -> T {
    let watchdog = Task {
        try await Task.sleep(for: limit)
        call.cancel()
    }
    defer { watchdog.cancel() }
    return try await call.value
}

/// Expects `call` to fail with the deadline's `timedOut` (within ``value(of:within:)``'s bound).
private func expectTimedOut(_ call: Task<NetworkDataResponse, any Error>) async {
    await #expect {
        _ = try await value(of: call)
    } throws: { error in
        guard case NetworkError.transport(.timedOut) = error else { return false }
        return true
    }
}

@Suite("An attempt run in its caller's task: the deadline stops its exchange, not a task")
struct InlineAttemptTests {
    @Test("the alarm cancels what is attached when it rings, once; an attempt attached after it rang at once")
    func alarmOrder() {
        let alarm = DeadlineAlarm()
        let first = CountingCanceller(), second = CountingCanceller()
        alarm.attach(attempt: first)
        alarm.attach(attempt: second)  // a redirect's exchange replaces the one before
        alarm.ring()
        alarm.ring()
        #expect(alarm.rang && first.cancellations == 0 && second.cancellations == 1)
        let late = CountingCanceller()
        alarm.attach(attempt: late)
        #expect(late.cancellations == 1, "an exchange starting after the deadline goes on")
    }

    @Test("a disarmed alarm cancels nothing, rung or not, and has not rung")
    func disarmed() {
        let alarm = DeadlineAlarm()
        let attached = CountingCanceller()
        alarm.attach(attempt: attached)
        alarm.disarm()
        let later = CountingCanceller()
        alarm.attach(attempt: later)
        alarm.ring()
        #expect(!alarm.rang && attached.cancellations == 0 && later.cancellations == 0)
    }

    @Test("the deadline cancels the waiting exchange, in the caller's task, which is not left cancelled")
    func ringsWhileWaiting() async throws {
        let clock = ManualClock()
        let transport = GatedTransport()
        let client = NetworkClient(transport: transport, timeout: .seconds(5), clock: clock)
        let call = Task { () -> (Bool, Bool) in
            do {
                _ = try await client.requestData(for: "https://example.com/slow")
                return (false, Task.isCancelled)
            } catch let error as NetworkError {
                guard case .transport(.timedOut) = error else { return (false, Task.isCancelled) }
                return (true, Task.isCancelled)
            }
        }
        await transport.waiting.wait()
        await clock.sleeps(atLeast: 1)  // the alarm's, on the test's clock
        clock.advance(by: .seconds(5))
        let (timedOut, callerCancelled) = try await value(of: call)
        #expect(timedOut)
        #expect(!callerCancelled, "the deadline left the caller's task cancelled")
        #expect(transport.boundAlarms == [true], "the attempt did not run in the caller's task")
        #expect(transport.gates.first?.cancelledByAlarm == true && transport.gates.first?.taskWasCancelledThen == false)
    }

    @Test("once the deadline rings during a redirect's body, no further request starts")
    func noRedirectAfterRing() async throws {
        let clock = ManualClock()
        let transport = GatedTransport(redirectFirst: true)
        let client = NetworkClient(transport: transport, timeout: .seconds(5), clock: clock)
        let call = Task { try await client.requestData(for: "https://example.com/moved") }
        await transport.waiting.wait()  // the redirect stage reads the 302's body
        await clock.sleeps(atLeast: 1)  // the alarm's, on the test's clock
        clock.advance(by: .seconds(5))
        await expectTimedOut(call)
        #expect(transport.gates.count == 1, "a request was started after the deadline")
    }

    @Test("cancelling the caller still cancels an inline attempt, as a cancellation, not a timeout")
    func callerCancels() async throws {
        let transport = GatedTransport()
        let client = NetworkClient(transport: transport)
        let call = Task { try await client.requestData(for: "https://example.com/slow") }
        await transport.waiting.wait()
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await value(of: call) }
        #expect(transport.boundAlarms == [true] && transport.gates.first?.cancelledByAlarm == false)
        #expect(transport.gates.first?.taskWasCancelledThen == true, "the gate did not see its task cancelled")
    }

    @Test("a client whose interceptors may wait before an attempt keeps a task for it, which the deadline cancels")
    func waitingInterceptorKeepsTheTask() async throws {
        let transport = await Self.timedOutCall(interceptors: [Signing()])
        #expect(transport.boundAlarms == [false] && transport.gates.first?.cancelledByAlarm == false)
    }

    @Test("a client whose interceptors do not wait before an attempt (retry, logging) runs it in the caller's task")
    func nonWaitingInterceptorsRunInline() async throws {
        let transport = await Self.timedOutCall(interceptors: [RetryPolicy(maximumRetries: 0), LoggingInterceptor { _ in }])
        #expect(transport.boundAlarms == [true] && transport.gates.first?.cancelledByAlarm == true)
    }

    @Test("a call its deadline ends is not retried, though RetryPolicy retries timeouts and has budget left",
          arguments: [false, true])
    func noRetryAfterTheDeadline(attemptHasATask: Bool) async throws {
        let retry = RetryPolicy(baseDelay: .zero, jitter: 0)
        let transport = await Self.timedOutCall(interceptors: attemptHasATask ? [retry, Signing()] : [retry])
        #expect(transport.gates.count == 1, "a retry started after the deadline")
        #expect(transport.boundAlarms == [!attemptHasATask])
    }

    @Test("an attempt timeout on an inline attempt is retried, the caller's task going on")
    func attemptTimeoutRetried() async throws {
        let clock = ManualClock()
        let transport = GatedTransport(waitsOnlyFirst: true)
        let client = NetworkClient(transport: transport, interceptors: [RetryPolicy(baseDelay: .zero, jitter: 0)],
                                   timeout: .seconds(60), attemptTimeout: .seconds(5), clock: clock)
        let call = Task { try await client.requestData(for: "https://example.com/slow-then-fast") }
        await transport.waiting.wait()
        await clock.sleeps(atLeast: 1)  // the first attempt's alarm
        clock.advance(by: .seconds(5))
        #expect(try await value(of: call).statusCode == 200)
        #expect(transport.boundAlarms == [true, true] && transport.gates.first?.cancelledByAlarm == true)
        // Nothing of the first attempt's deadline is left: the second exchange was not cancelled,
        // and no alarm still sleeps on the clock.
        #expect(transport.gates.last?.cancelledByAlarm == false && clock.pendingDelays.isEmpty)
    }

    /// A call through a client with `interceptors` on a gated transport, its deadline passed on a
    /// test clock while the exchange waits, expected to time out; the transport, to look at.
    private static func timedOutCall(interceptors: [any NetworkInterceptor]) async -> GatedTransport {
        let clock = ManualClock()
        let transport = GatedTransport()
        let client = NetworkClient(transport: transport, interceptors: interceptors, timeout: .seconds(5), clock: clock)
        let call = Task { try await client.requestData(for: "https://example.com/slow") }
        await transport.waiting.wait()
        await clock.sleeps(atLeast: 1)  // the alarm's, on the test's clock
        clock.advance(by: .seconds(5))
        await expectTimedOut(call)
        return transport
    }
}

/// An interceptor whose `interceptRequest` may wait (as one that fetches a token would): the
/// deadline must be able to interrupt it, so its attempts keep a task of their own.
private struct Signing: NetworkInterceptor {
    func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
        var signed = request
        try signed.headers.set(name: "Authorization", value: "Bearer token")
        return signed
    }
}

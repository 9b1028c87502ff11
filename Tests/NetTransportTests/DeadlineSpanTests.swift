import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// A call has one deadline (Docs/Architecture.md, stage 1): backoff waits count against it, a
/// backoff that would outlast it is not waited, and a resumable download's two requests share it.
/// On a manual clock: each check moves time itself, and what it reads is the sleeps left waiting.
@Suite("One call deadline across backoff waits and a resumable download's two requests")
struct DeadlineSpanTests {
    private static func expectTimedOut(_ call: Task<some Sendable, any Error>, sourceLocation: SourceLocation = #_sourceLocation) async {
        let error = await #expect(throws: NetworkError.self, sourceLocation: sourceLocation) { _ = try await call.value }
        guard case .transport(.timedOut)? = error else {
            Issue.record("expected timedOut, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
    }

    @Test("a backoff wait counts against the deadline: the retry gets only what is left of it", .timeLimit(.minutes(3)))
    func backoffCounts() async throws {
        let clock = ManualClock()
        let attempts = LockedValue(0)
        let stub = StubTransport { _ in
            if attempts.withLock({ $0 += 1; return $0 }) == 1 { return .status(.serviceUnavailable) }
            try await Task.sleep(for: .seconds(3_600))  // the retry hangs: only the deadline ends it
            return .status(.ok)
        }
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(baseDelay: .seconds(6), jitter: 0)],
                                   timeout: .seconds(10), clock: clock)
        let call = Task { try await client.requestData(for: "https://example.com/flaky") }
        await clock.sleeps(atLeast: 2)  // the first attempt's alarm, then the backoff
        #expect(clock.pendingDelays == [.seconds(6)], "the backoff alone waits")
        clock.advance(by: .seconds(6))
        await clock.sleeps(atLeast: 3)  // the retry's alarm
        // A deadline per attempt would give the retry 10 s again.
        #expect(clock.pendingDelays == [.seconds(4)])
        clock.advance(by: .seconds(4))
        await Self.expectTimedOut(call)
        #expect(attempts.value == 2)
    }

    @Test("a backoff longer than the call has left is not waited: the last answer comes back at once", .timeLimit(.minutes(3)))
    func backoffPastTheDeadline() async throws {
        let clock = ManualClock()
        let stub = StubTransport(fallback: .status(.serviceUnavailable))
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(baseDelay: .seconds(600), jitter: 0)],
                                   timeout: .seconds(10), clock: clock)
        // Nothing advances the clock, so a 600 s backoff, once begun, would never end: the call
        // ending by itself shows none began.
        let response = try await client.requestData(for: "https://example.com/busy")
        #expect(response.statusCode == .serviceUnavailable)
        #expect(stub.requests.count == 1)
        // At most the attempt's alarm (whose task may not have run before it was disarmed).
        #expect(clock.sleepsStarted <= 1)
    }

    @Test("a resumable download's two requests share one deadline: the second gets what the first left", .timeLimit(.minutes(3)))
    func resumableDownloadSharesTheDeadline() async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file")
        try Data("01234".utf8).write(to: URL(fileURLWithPath: destination.path + ".part"))
        try Data(#"{"url":"https://example.com/file","ifRange":"\"v1\""}"#.utf8).write(to: URL(fileURLWithPath: destination.path + ".part.json"))

        let clock = ManualClock()
        let wholeRequestArrived = AsyncSignal()
        let stub = StubTransport { request in
            if request.headers["Range"] != nil {
                // The ranged request takes 20 s of the call's 30, then cannot be satisfied: the
                // download starts over with a second request.
                try await clock.sleep(for: .seconds(20))
                return .status(HTTPCode(rawValue: 416), headers: [.header(key: "Content-Range", value: "bytes */10")])
            }
            wholeRequestArrived.fire()
            try await Task.sleep(for: .seconds(3_600))  // only a deadline ends it
            return .status(.ok)
        }
        let client = NetworkClient(transport: stub, timeout: .seconds(30), clock: clock)
        let call = Task { try await client.requestResumableDownload(for: "https://example.com/file", to: destination) }
        await clock.sleeps(atLeast: 3)  // the download's deadline, the ranged request's own, and its 20 s
        #expect(clock.pendingDelays == [.seconds(20), .seconds(30), .seconds(30)])
        clock.advance(by: .seconds(20))
        await wholeRequestArrived.wait()
        await clock.sleeps(atLeast: 4)  // the second request's own deadline
        // The second request's own 30 s run from its start; the download's 10 s are what is left.
        #expect(clock.pendingDelays == [.seconds(10), .seconds(30)])
        clock.advance(by: .seconds(10))
        await Self.expectTimedOut(call)
        #expect(stub.requests.map { $0.request.headers["Range"] } == ["bytes=5-", nil])
        // The partial bytes stay for a later call.
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination.path + ".part")) == Data("01234".utf8))
    }
}

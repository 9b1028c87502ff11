import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Testing

@Suite("RetryPolicy and Retry-After on StubTransport")
struct RetryPolicyTests {
    func client(_ stub: StubTransport, _ policy: RetryPolicy) -> NetworkClient {
        NetworkClient(transport: stub, interceptors: [policy])
    }

    @Test("retryable statuses are retried with exponential backoff until success")
    func backoff() async throws {
        let stub = StubTransport()
        stub.on(.get, "/x", respond: .status(503), .status(500), .status(200))
        let policy = RetryPolicy(maximumRetries: 3, baseDelay: .milliseconds(100), multiplier: 2, jitter: 0)
        // On a manual clock: each wait is seen as it starts (the call's deadline sleeps on the
        // clock too, far longer) and ends only when the test moves the clock past it.
        let clock = ManualClock()
        let call = Task { try await NetworkClient(transport: stub, interceptors: [policy], clock: clock).requestData(for: "https://host/x") }
        for (retry, wait) in [(1, Duration.milliseconds(100)), (2, .milliseconds(200))] {
            try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { clock.pendingDelays.first == wait },
                         "retry \(retry): waits \(clock.pendingDelays), not \(wait) first")
            #expect(stub.requests.count == retry)  // the next attempt waits for the clock
            clock.advance(by: wait - .milliseconds(1))
            #expect(clock.pendingDelays.first == .milliseconds(1))  // not a moment early
            clock.advance(by: .milliseconds(1))
        }
        let response = try await call.value
        #expect(response.statusCode == 200)
        #expect(stub.requests.count == 3)
        #expect(policy.backoff(forRetry: 0) == .milliseconds(100))
        #expect(policy.backoff(forRetry: 3) == .milliseconds(800))
        #expect(RetryPolicy(baseDelay: .seconds(1), maximumDelay: .seconds(5), jitter: 0).backoff(forRetry: 10) == .seconds(5))
    }

    @Test("an authentication refresh's retry leaves RetryPolicy's budget whole: a 503 after the refresh is still retried")
    func ownBudget() async throws {
        let stub = StubTransport()
        stub.on(.get, "/x", respond: .status(.unauthorized), .status(503), .status(200))
        let auth = AuthenticationInterceptor<String>(credential: "stale", header: { .header(key: "Authorization", value: "Bearer \($0)") }) { _ in "fresh" }
        let policy = RetryPolicy(maximumRetries: 1, baseDelay: .zero, jitter: 0)
        let response = try await NetworkClient(transport: stub, interceptors: [auth, policy]).requestData(for: "https://host/x")
        #expect(response.statusCode == 200)
        #expect(stub.requests.map { $0.request.headers["Authorization"] } == ["Bearer stale", "Bearer fresh", "Bearer fresh"])
        #expect(response.metrics.retries.map(\.requestedBy) == ["AuthenticationInterceptor<String>", "RetryPolicy"])
        // The policy's own budget still holds: a second 503 in a row is not retried.
        stub.on(.get, "/y", respond: .status(503), .status(503), .status(200))
        let limited = try await NetworkClient(transport: stub, interceptors: [auth, policy]).requestData(for: "https://host/y")
        #expect(limited.statusCode == 503)
    }

    @Test("jitter spreads waits within ±jitter")
    func jitter() {
        let policy = RetryPolicy(baseDelay: .seconds(1), jitter: 0.2)
        let waits = (0..<200).map { _ in policy.backoff(forRetry: 0) }
        #expect(waits.allSatisfy { $0 >= .milliseconds(800) && $0 <= .milliseconds(1_200) })
        #expect(Set(waits).count > 10)
    }

    @Test("the retry limit holds: the last response is returned")
    func limit() async throws {
        let stub = StubTransport()
        stub.on(.get, "/x", respond: .status(503))
        let response = try await client(stub, RetryPolicy(maximumRetries: 2, baseDelay: .zero, jitter: 0)).requestData(for: "https://host/x")
        #expect(response.statusCode == 503)
        #expect(stub.requests.count == 3)
    }

    @Test("non-retryable statuses and non-idempotent methods are not retried unless opted in")
    func notRetried() async throws {
        let stub = StubTransport()
        stub.on(.get, "/bad", respond: .status(400))
        stub.on(.post, "/x", respond: .status(503))
        let policy = RetryPolicy(baseDelay: .zero, jitter: 0)
        _ = try await client(stub, policy).requestData(for: "https://host/bad")
        _ = try await client(stub, policy).requestData(for: try NetworkRequest(url: "https://host/x", httpMethod: .post))
        #expect(stub.requests.count == 2)

        var optedIn = policy
        optedIn.retriesNonIdempotentMethods = true
        stub.reset()
        _ = try await client(stub, optedIn).requestData(for: try NetworkRequest(url: "https://host/x", httpMethod: .post))
        #expect(stub.requests.count == 3)
    }

    @Test("idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS, TRACE) are retried; POST, PATCH and others are not",
          arguments: [(NetworkHttpMethod.get, true), (.head, true), (.put, true), (.delete, true), (.options, true), (.trace, true),
                      (.post, false), (.patch, false), (.other("PURGE"), false)])
    func methods(_ method: NetworkHttpMethod, _ retried: Bool) async throws {
        let stub = StubTransport()
        stub.on(method, "/x", respond: .status(503), .status(200))
        let request = try NetworkRequest(url: "https://host/x", httpMethod: method)
        let response = try await client(stub, RetryPolicy(baseDelay: .zero, jitter: 0)).requestData(for: request)
        #expect(response.statusCode == (retried ? 200 : 503))
        #expect(stub.requests.count == (retried ? 2 : 1))
    }

    @Test("transient transport failures are retried; TLS failures are not")
    func transportFailures() async throws {
        let stub = StubTransport()
        stub.on(.get, "/flaky", respond: .failure(.cannotConnect("refused")), .failure(.connectionLost("reset")), .failure(.timedOut("slow")), .status(200))
        stub.on(.get, "/tls", respond: .failure(.tls("bad certificate")))
        let policy = RetryPolicy(maximumRetries: 3, baseDelay: .zero, jitter: 0)
        #expect(try await client(stub, policy).requestData(for: "https://host/flaky").statusCode == 200)
        await #expect(throws: NetworkError.self) { _ = try await client(stub, policy).requestData(for: "https://host/tls") }
        #expect(stub.requests.count == 5)
    }

    @Test("Retry-After in seconds sets the wait; one beyond maximumRetryAfter means no retry")
    func retryAfter() async throws {
        let stub = StubTransport()
        stub.on(.get, "/busy", respond: .status(429, headers: [.header(key: "Retry-After", value: "1")]), .status(200))
        stub.on(.get, "/later", respond: .status(503, headers: [.header(key: "Retry-After", value: "3600")]))
        let policy = RetryPolicy(baseDelay: .milliseconds(1), jitter: 0)
        let clock = ManualClock()
        let client = NetworkClient(transport: stub, interceptors: [policy], clock: clock)
        let busy = Task { try await client.requestData(for: "https://host/busy") }
        // The wait is the server's 1 s, not the policy's 1 ms backoff.
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { clock.pendingDelays.first == .seconds(1) },
                     "waits \(clock.pendingDelays), not 1 s first")
        #expect(stub.requests.count == 1)
        clock.advance(by: .seconds(1))
        #expect(try await busy.value.statusCode == 200)
        #expect(try await client.requestData(for: "https://host/later").statusCode == 503)
        #expect(stub.requests.count == 3)
    }

    @Test("a Retry-After date is measured from the response's Date, not the client's clock")
    func retryAfterDate() async throws {
        let stub = StubTransport()
        // Dates in 1994: measured from the system's clock the wait would be zero.
        stub.on(.get, "/busy", respond: .status(503, headers: [.header(key: "Date", value: "Sun, 06 Nov 1994 08:49:37 GMT"),
                                                                .header(key: "Retry-After", value: "Sun, 06 Nov 1994 08:49:39 GMT")]),
                .status(200))
        let clock = ManualClock()
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(baseDelay: .milliseconds(1), jitter: 0)], clock: clock)
        let busy = Task { try await client.requestData(for: "https://host/busy") }
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { clock.pendingDelays.first == .seconds(2) },
                     "waits \(clock.pendingDelays), not the 2 s between the two dates first")
        #expect(stub.requests.count == 1)
        clock.advance(by: .seconds(2))
        #expect(try await busy.value.statusCode == 200)
        // An Age moves the server's now on; an invalid Date leaves the system's clock (1994 is past: no wait).
        let response = { (headers: [NetworkHeader]) in NetworkResponseHead(statusCode: 503, headers: try NetworkHeaders(headers), url: URL(string: "https://host/")!) }
        let date = NetworkHeader.header(key: "Date", value: "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(RetryPolicy.serverNow(of: try response([date, .header(key: "Age", value: "30")])) == RetryAfter.httpDate("Sun, 06 Nov 1994 08:50:07 GMT"))
        #expect(RetryPolicy.serverNow(of: try response([date, .header(key: "Age", value: "soon")])) == RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT"))
        for hostile in ["+5", "-5", "5s"] {  // not 1*DIGIT: no age
            #expect(RetryPolicy.serverNow(of: try response([date, .header(key: "Age", value: hostile)])) == RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT"), "\(hostile)")
        }
        // Too large for an Int: the largest age, capped at a year like any other.
        #expect(RetryPolicy.serverNow(of: try response([date, .header(key: "Age", value: "99999999999999999999")]))
                == RetryPolicy.serverNow(of: try response([date, .header(key: "Age", value: "99999999999")])))
        let now = Date()
        #expect(RetryPolicy.serverNow(of: try response([.header(key: "Date", value: "yesterday")])) >= now)
    }

    @Test("a Retry-After longer than the call has left returns the answer at once, not a timeout at the deadline", .timeLimit(.minutes(3)))
    func retryAfterPastTheDeadline() async throws {
        let stub = StubTransport()
        stub.on(.get, "/busy", respond: .status(503, headers: [.header(key: "Retry-After", value: "30")]), .status(200))
        // On a manual clock nobody advances: a retry that waited for the 30 s (or the call's 10 s)
        // would never end, and the time limit would fail the test.
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(maximumRetryAfter: .seconds(60))], clock: ManualClock())
        let response = try await client.requestData(for: NetworkRequest(url: "https://host/busy", timeout: .seconds(10)))
        #expect(response.statusCode == 503 && response.response.headers["Retry-After"] == "30")
        #expect(stub.requests.count == 1)
    }

    @Test("Retry-After parsing: seconds and the three HTTP-date forms")
    func parsing() throws {
        let now = try #require(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(now.timeIntervalSince1970 == 784_111_777)
        #expect(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == now)
        #expect(RetryAfter.httpDate("Sun Nov  6 08:49:37 1994") == now)
        #expect(RetryAfter.delay(from: "120", now: now) == .seconds(120))
        #expect(RetryAfter.delay(from: " 0 ", now: now) == .zero)
        #expect(RetryAfter.delay(from: "0000000000005", now: now) == .seconds(5))  // leading zeros count for nothing
        #expect(RetryAfter.delay(from: "99999999999999999999", now: now) == .seconds(999_999_999_999))
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:50:07 GMT", now: now) == .seconds(30))
        // The furthest date there is, from the earliest `now` there is: capped, not an overflow.
        #expect(RetryAfter.delay(from: "Fri, 31 Dec 9999 23:59:59 GMT", now: Date(timeIntervalSince1970: -1e300)) == .seconds(1_000_000_000_000))
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
        for garbage in ["", "-5", "1.5", "soon", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT",
                        "Sun, 06 Nov 1000000000000 08:49:37 GMT", "Sun, 06 Nov 300000000 08:49:37 GMT", "Sun Nov  6 08:49:37 99999999999999",
                        "Sun, 06 Nov 0 08:49:37 GMT", "Sun, 06 Nov -5 08:49:37 GMT",
                        "Sunday, 06-Nov-9223372036854775807 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT"] {
            #expect(RetryAfter.delay(from: garbage, now: now) == nil, "\(garbage)")
        }
    }
}

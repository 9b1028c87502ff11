import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// `NetworkMetrics` as the session records it, above the transport (`StubTransport`), and what
/// URLSession on Linux offers below it. The transports' own phases are in the conformance suite
/// (`TransportMetrics`).
@Suite("NetworkMetrics: attempts, retries, errors and the cache")
struct NetworkMetricsTests {
    /// Retries once when the first attempt fails with any error.
    struct RetryOnFailure: NetworkInterceptor {
        func interceptResponse(
            _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
        ) async throws -> NetworkSessionInterceptionResult {
            if case .failure = result, retryNumber == 0 { return .retry(request) }
            return .nothing
        }
    }

    /// Holds the first attempt's signing until its task is cancelled (by the attempt's deadline).
    struct SlowFirstSigning: NetworkInterceptor {
        let calls = LockedValue(0)
        let signing = AsyncSignal()
        func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
            if calls.withLock({ $0 += 1; return $0 }) == 1 {
                signing.fire()
                try await Task.sleep(for: .seconds(3600))
            }
            return request
        }
    }

    @Test("each error reports its case name, response failures and payload-less cases included")
    func errorTypes() throws {
        let request = try NetworkRequest(url: "https://a.example")
        let response = NetworkDataResponse(data: Data(), response: NetworkResponseHead(statusCode: 500, url: request.url), originalRequest: request)
        struct Custom: Error {}
        let cases: [(any Error, String)] = [
            (NetworkError.transport(.timedOut("x")), "timedOut"),
            (NetworkError.transport(.cannotConnect("x")), "cannotConnect"),
            (NetworkError.transport(.tooManyRedirects(limit: 3, lastURL: "x")), "tooManyRedirects"),
            (NetworkError.responseData(.invalidStatusCode(response, 500)), "invalidStatusCode"),
            (NetworkError.stream(.stoppedByServer), "stoppedByServer"),
            (NetworkError.request(.invalidMethod("A B")), "invalidMethod"),
            (CancellationError(), "CancellationError"),
            (Custom(), "Custom"),
        ]
        for (error, name) in cases {
            #expect(NetworkMetrics.errorType(of: error) == name)
        }
    }

    @Test("a cache hit is an attempt answered by the cache, with its first byte and body")
    func cacheHit() async throws {
        let stub = StubTransport()
        stub.on(nil, "*", respond: .text("cached", headers: [NetworkHeader(name: "Cache-Control", value: "max-age=600")]))
        let client = NetworkClient(transport: stub, cache: HTTPCache())
        let first = try await client.requestData(for: "https://api.example.com/item")
        let second = try await client.requestData(for: "https://api.example.com/item")
        #expect(first.metrics.cacheStatus == .network && second.metrics.cacheStatus == .cache)
        let hit = try #require(second.metrics.attempts.first)
        #expect(second.metrics.attempts.count == 1 && hit.statusCode == 200)
        #expect(hit.time(of: .firstByte) != nil && hit.responseBodyBytes == 6)
        #expect(stub.requests.count == 1)
    }

    @Test("a try that timed out while signing is an attempt of its own, and the retry follows it")
    func failedBeforeSending() async throws {
        let stub = StubTransport()
        stub.on(nil, "*", respond: .text("ok"))
        // On a manual clock the first attempt's deadline passes only when the test moves the
        // clock, while its signing waits; the retry's never does, however slow the machine.
        let clock = ManualClock()
        let signing = SlowFirstSigning()
        let client = NetworkClient(transport: stub, interceptors: [RetryOnFailure(), signing],
                                   attemptTimeout: .milliseconds(100), clock: clock)
        let call = Task { try await client.requestData(for: "https://api.example.com/slow") }
        await signing.signing.wait()
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { clock.pendingDelays.contains(where: { $0 <= .milliseconds(100) }) })
        clock.advance(by: .milliseconds(100))
        let response = try await call.value
        let attempts = response.metrics.attempts
        #expect(attempts.map(\.retryNumber) == [0, 1])
        #expect(attempts[0].errorType == "timedOut" && attempts[0].statusCode == nil && attempts[0].phases.seen.isEmpty)
        #expect(attempts[1].statusCode == 200)
        #expect(response.metrics.retries == [NetworkMetrics.Retry(afterAttempt: 0, reason: "timedOut", requestedBy: "RetryOnFailure")])
        #expect(stub.requests.count == 1)
    }

    @Test("a request's secret query keys are redacted from its attempts' URLs, and dump shows no secret")
    func secretKeys() async throws {
        let stub = StubTransport()
        stub.on(nil, "*", respond: .text("ok"))
        let request = try NetworkRequest(url: "https://api.example.com/x", query: [.secret(key: "sig", value: "s3cret"), .query(key: "page", value: "2")])
        let metrics = try await NetworkClient(transport: stub).requestData(for: request).metrics
        let url = try #require(metrics.attempts.first?.redactedURL)
        #expect(url.contains("sig=REDACTED") && url.contains("page=2") && !url.contains("s3cret"))
        var dumped = ""
        dump(metrics, to: &dumped)
        #expect(!dumped.contains("s3cret"))
    }

    @Test("a stream's metrics end at its head: duration set, no body phase or byte count")
    func streamMetrics() async throws {
        let stub = StubTransport()
        stub.on(nil, "*", respond: .text("streamed"))
        let stream = try await NetworkClient(transport: stub).requestStream(for: "https://api.example.com/s")
        let attempt = try #require(stream.metrics.attempts.first)
        #expect(stream.metrics.duration != nil && attempt.time(of: .firstByte) != nil)
        #expect(attempt.time(of: .bodyComplete) == nil && attempt.responseBodyBytes == nil)
        var read = 0
        for try await chunk in stream.body { read += chunk.count }
        #expect(read == 8)
    }
}

/// What `NetworkMetrics` cannot have on `URLSessionTransport`, proven against the platform: on
/// Linux URLSession never delivers `URLSessionTaskMetrics`. Should a Foundation release start
/// to, this fails, and the transport should read them.
@Suite("URLSession on Linux: no task metrics")
struct URLSessionTaskMetricsProbeTests {
    final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        let events = LockedValue<[String]>([])
        let completed = AsyncSignal()
        func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
            events.withLock { $0.append("metrics") }
        }
        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            events.withLock { $0.append("complete") }
            completed.fire()
        }
    }

    #if os(Linux)
    @Test("didFinishCollecting never comes before (or instead of) didCompleteWithError")
    func noTaskMetrics() async throws {
        let base = try await LoopbackServer.shared.baseURL()
        let delegate = Delegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: base.appendingPathComponent("bytes/100")).resume()
        await delegate.completed.wait()
        #expect(delegate.events.value == ["complete"])
    }
    #endif
}

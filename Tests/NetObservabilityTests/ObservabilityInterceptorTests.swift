#if Observability  // the package trait
import Foundation
import HTTPTypes
import Hummingbird
import InMemoryLogging
import InMemoryTracing
import Instrumentation
import Logging
import MetricsTestKit
import Net
import NetObservability
import NetTestSupport
import Testing
import Tracing

/// The loopback server: `/ok/:key`, `/flaky/:key` (503 the first time, then 200) and
/// `/redirect?to=PATH` (302); every request's path and `traceparent` are recorded.
enum ObservedServer {
    static let arrivals = LockedValue<[(path: String, traceparent: String?, tracestate: String?)]>([])
    private static let flakySeen = LockedValue<Set<String>>([])

    static let shared = SharedLoopbackServer {
        let router = Router()
        router.middlewares.add(RecordingMiddleware())
        router.get("/ok/:key") { _, _ in "ok" }
        router.get("/flaky/:key") { _, context -> Response in
            let key = context.parameters.get("key") ?? ""
            let first = flakySeen.withLock { $0.insert(key).inserted }
            return Response(status: first ? .serviceUnavailable : .ok)
        }
        router.get("/redirect") { request, _ -> Response in
            Response(status: .found, headers: [.location: request.uri.queryParameters.get("to") ?? "/ok/none"])
        }
        return router
    }

    struct RecordingMiddleware: RouterMiddleware {
        func handle(_ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
            let traceparent = HTTPField.Name("traceparent").flatMap { request.headers[$0] }
            let tracestate = HTTPField.Name("tracestate").flatMap { request.headers[$0] }
            ObservedServer.arrivals.withLock { $0.append((request.uri.description, traceparent, tracestate)) }
            return try await next(request, context)
        }
    }

    static func traceparents(containing key: String) -> [String?] {
        arrivals.value.filter { $0.path.contains(key) }.map(\.traceparent)
    }
}

/// Retries once when an attempt answers 503.
struct RetryOn503: NetworkInterceptor {
    func interceptResponse(
        _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult {
        if case .success(let response) = result, response.statusCode == 503, retryNumber == 0 { return .retry(request) }
        return .nothing
    }
}

@Suite("ObservabilityInterceptor: swift-log, swift-metrics and swift-distributed-tracing")
struct ObservabilityInterceptorTests {
    let tracer = W3CTestTracer()
    let logs = InMemoryLogHandler()
    let metrics = TestMetrics()

    func interceptor() -> ObservabilityInterceptor {
        var logger = Logger(label: "net-test") { [logs] _ in logs }
        logger.logLevel = .debug
        return ObservabilityInterceptor(logger: logger, metricsFactory: metrics, tracer: tracer)
    }

    /// One URLSession for the whole suite: each new one adds to FoundationNetworking's shared
    /// work, which delays the fault suite's URLSession checks running beside it.
    static let transport = URLSessionTransport()

    func client(_ transport: any Transport = Self.transport) -> NetworkClient {
        NetworkClient(transport: transport, interceptors: [RetryOn503(), interceptor()])
    }

    @Test("a retried, redirected call: a call span under the caller's, one child span per attempt, and each attempt's traceparent as the server received it")
    func spans() async throws {
        let key = UUID().uuidString
        let base = try await ObservedServer.shared.baseURL()
        let parent = tracer.startSpan("caller", context: .topLevel)
        let response = try await ServiceContext.$current.withValue(parent.context) {
            try await client().requestData(for: "\(base)/redirect?to=/flaky/\(key)")
        }
        parent.end()
        #expect(response.statusCode == 200)
        let spans = tracer.base.finishedSpans
        let call = try #require(spans.first { $0.parentSpanID == parent.spanContext.spanID })
        let attempts = spans.filter { $0.parentSpanID == call.spanID }
        #expect(spans.count == 4 && attempts.count == 2)
        #expect(Set(spans.map(\.traceID)) == [parent.spanContext.traceID])
        #expect(call.kind == .client && call.operationName == "GET")
        #expect(call.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(call.attributes["net.attempt_count"]?.toSpanAttribute() == .int64(2))
        #expect(call.attributes["net.redirect_count"]?.toSpanAttribute() == .int64(2))
        #expect(call.attributes["server.address"]?.toSpanAttribute() == .string("127.0.0.1"))
        #expect(call.status == nil)
        let (first, second) = (attempts[0], attempts[1])
        #expect(first.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(503))
        #expect(first.attributes["error.type"]?.toSpanAttribute() == .string("503"))
        #expect(first.status?.code == .error)
        #expect(second.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(second.attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
        #expect(first.events.map(\.name) == ["redirect"] && second.events.map(\.name) == ["redirect"])
        // Each attempt's two requests (the redirect and its target) carried that attempt's span.
        let sent = ObservedServer.traceparents(containing: key)
        let expected = [first, first, second, second].map { W3CTestTracer.traceparent(traceID: $0.traceID, spanID: $0.spanID) }
        #expect(sent == expected)
    }

    @Test("one line per call at info and one per attempt at debug, with OpenTelemetry's names as metadata and the URL redacted")
    func logging() async throws {
        let key = UUID().uuidString
        let base = try await ObservedServer.shared.baseURL()
        _ = try await client().requestData(for: "\(base)/flaky/\(key)?access_token=hunter2")
        let entries = logs.entries
        #expect(entries.map(\.level) == [.debug, .debug, .info])
        let callLine = try #require(entries.last)
        #expect(callLine.message.description.hasPrefix("GET http://127.0.0.1:"))
        #expect(callLine.message.description.contains("→ 200 in "))
        #expect(callLine.metadata["http.response.status_code"]?.description == "200")
        #expect(callLine.metadata["net.attempts"]?.description == "2")
        #expect(callLine.metadata["net.cache_status"]?.description == "network")
        #expect(callLine.metadata["net.redirects"]?.description == "0")
        let milliseconds = try #require(callLine.metadata["net.duration_ms"].flatMap { Double($0.description) }, "\(callLine.metadata)")
        #expect(milliseconds >= 0)
        #expect(entries[0].metadata["error.type"]?.description == "503")
        #expect(entries[1].metadata["http.request.resend_count"]?.description == "1")
        let everything = entries.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!everything.contains("hunter2"))
        #expect(everything.contains("url.full"))
    }

    @Test("http.client.request.duration per attempt with its dimensions, and active requests back to zero")
    func metricsRecorded() async throws {
        let key = UUID().uuidString
        let base = try await ObservedServer.shared.baseURL()
        _ = try await client().requestData(for: "\(base)/flaky/\(key)")
        let port = String(try #require(base.port))
        let target = [("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", port), ("url.scheme", "http")]
        let failed = try metrics.expectTimer("http.client.request.duration", target + [("http.response.status_code", "503"), ("error.type", "503")])
        let succeeded = try metrics.expectTimer("http.client.request.duration", target + [("http.response.status_code", "200")])
        #expect(failed.values.count == 1 && succeeded.values.count == 1)
        #expect(failed.values[0] > 0 && succeeded.values[0] > 0)
        let active = try metrics.expectMeter("http.client.active_requests", target)
        #expect(active.values == [1, 0])
    }

    @Test("a retry's request carries only its own attempt's trace fields; a secret query value shows nowhere")
    func retriedTraceFieldsAndSecrets() async throws {
        let key = UUID().uuidString
        let base = try await ObservedServer.shared.baseURL()
        let request = try NetworkRequest(url: "\(base)/flaky/\(key)", query: [.secret(key: "sig", value: "s3cret")])
        _ = try await client().requestData(for: request)
        let arrivals = ObservedServer.arrivals.value.filter { $0.path.contains(key) }
        let attempts = tracer.base.finishedSpans.filter { $0.parentSpanID != nil }
        #expect(arrivals.count == 2 && attempts.count == 2)
        for (arrival, span) in zip(arrivals, attempts) {
            #expect(arrival.traceparent == W3CTestTracer.traceparent(traceID: span.traceID, spanID: span.spanID))
        }
        // The test tracer writes `tracestate` for the first attempt only: the retry, whose request
        // is the first one as sent, must not carry it on.
        #expect(arrivals.map(\.tracestate) == ["net=\(attempts[0].spanID)", nil])
        let reported = tracer.base.finishedSpans.map { "\($0.attributes)" }.joined() + logs.entries.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(reported.contains("sig=REDACTED") && !reported.contains("s3cret"))
    }

    @Test("placed before an interceptor whose retry the budget refuses, every span still ends, with the last status")
    func notLast() async throws {
        let key = UUID().uuidString
        let base = try await ObservedServer.shared.baseURL()
        let client = NetworkClient(transport: Self.transport, interceptors: [interceptor(), RetryOn503()], maximumRetryCount: 0)
        let response = try await client.requestData(for: "\(base)/flaky/\(key)")
        #expect(response.statusCode == 503)
        #expect(tracer.base.activeSpans.isEmpty)
        let spans = tracer.base.finishedSpans
        #expect(spans.count == 2)
        for span in spans {
            #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(503))
            #expect(span.status?.code == .error)
        }
    }

    @Test("a call that cannot connect: spans with error status and error.type, and a failed line")
    func failure() async throws {
        let closed = try LocalPorts.closed()
        await #expect(throws: NetworkError.self) {
            _ = try await client().requestData(for: "http://127.0.0.1:\(closed)/nothing")
        }
        let spans = tracer.base.finishedSpans
        #expect(spans.count == 2)
        for span in spans {
            #expect(span.status?.code == .error)
            #expect(span.attributes["error.type"]?.toSpanAttribute() == .string("cannotConnect"))
        }
        #expect(logs.entries.last?.message.description.contains("failed (cannotConnect)") == true)
        #expect(logs.entries.last?.metadata["net.attempts"]?.description == "1")
        let call = try #require(spans.first { $0.parentSpanID == nil })
        #expect(call.attributes["net.attempt_count"]?.toSpanAttribute() == .int64(1))
    }
}
#endif

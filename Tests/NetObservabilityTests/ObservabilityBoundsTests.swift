import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Net
import NetObservability
import Testing
import Tracing

/// What a caller or a server can put into metric dimensions, span names and events: never a new
/// series per value, never a credential.
@Suite("ObservabilityInterceptor: bounded dimensions and redacted events")
struct ObservabilityBoundsTests {
    let tracer = W3CTestTracer()
    let logs = InMemoryLogHandler()
    let metrics = TestMetrics()

    func client(_ stub: StubTransport) -> NetworkClient {
        var logger = Logger(label: "net-test") { [logs] _ in logs }
        logger.logLevel = .debug
        return NetworkClient(transport: stub, interceptors: [ObservabilityInterceptor(logger: logger, metricsFactory: metrics, tracer: tracer)])
    }

    static let target = [("server.address", "example.test"), ("server.port", "443"), ("url.scheme", "https")]

    @Test("a method OpenTelemetry does not know is _OTHER as a dimension and HTTP as the span name, the token in http.request.method_original")
    func unknownMethod() async throws {
        let stub = StubTransport()
        stub.on(nil, "/item", respond: .status(.ok))
        _ = try await client(stub).requestData(for: NetworkRequest(url: "https://example.test/item", httpMethod: .other("PURGE")))
        let timer = try metrics.expectTimer("http.client.request.duration",
                                            [("http.request.method", "_OTHER")] + Self.target + [("http.response.status_code", "200")])
        #expect(timer.values.count == 1)
        let spans = tracer.base.finishedSpans
        #expect(!spans.isEmpty && spans.allSatisfy { $0.operationName == "HTTP" })
        #expect(spans.allSatisfy { $0.attributes["http.request.method_original"]?.toSpanAttribute() == .string("PURGE") })
        #expect(spans.allSatisfy { $0.attributes["http.request.method"]?.toSpanAttribute() == .string("_OTHER") })
    }

    @Test("a status outside 100–599 is _OTHER as a dimension and as error.type, however many a server sends")
    func statusOutsideRange() async throws {
        let stub = StubTransport()
        for (index, code) in [42, 1_000, 64_000].enumerated() {
            stub.on(.get, "/odd/\(index)", respond: .status(HTTPCode(code)))
            _ = try await client(stub).requestData(for: "https://example.test/odd/\(index)")
        }
        let timer = try metrics.expectTimer("http.client.request.duration",
                                            [("http.request.method", "GET")] + Self.target + [("http.response.status_code", "_OTHER"), ("error.type", "_OTHER")])
        #expect(timer.values.count == 3)
        #expect(metrics.timers.filter { $0.label == "http.client.request.duration" }.count == 1)
        // Below 100 (42) and from 400 up (1,000 and 64,000) the span's status is error.
        let calls = tracer.base.finishedSpans.filter { $0.parentSpanID == nil }
        #expect(calls.count == 3 && calls.allSatisfy { $0.status?.code == .error }, "\(calls.map(\.status))")
    }

    @Test("a status from 100 to 399 leaves the span's status unset")
    func statusInRange() async throws {
        let stub = StubTransport()
        for code in [150, 204, 304, 399] { stub.on(.get, "/s/\(code)", respond: .status(HTTPCode(code))) }
        for code in [150, 204, 304, 399] { _ = try await client(stub).requestData(for: "https://example.test/s/\(code)") }
        let calls = tracer.base.finishedSpans.filter { $0.parentSpanID == nil }
        #expect(calls.count == 4 && calls.allSatisfy { $0.status == nil }, "\(calls.map(\.status))")
    }

    @Test("a redirect's span event shows its Location redacted: a token in its query or its fragment shows nowhere")
    func redirectEventRedacted() async throws {
        let stub = StubTransport()
        let location = "https://example.test/callback?state=s1&access_token=QUERYSECRET1#access_token=FRAGMENTSECRET2&token_type=bearer"
        stub.on(.get, "/login", respond: .status(.found, headers: [.header(key: "Location", value: location)]))
        stub.on(.get, "/callback", respond: .status(.ok))
        _ = try await client(stub).requestData(for: "https://example.test/login")
        let events = tracer.base.finishedSpans.flatMap(\.events)
        let redirect = try #require(events.first { $0.name == "redirect" })
        let shown = "\(redirect.attributes["url.full"]?.toSpanAttribute() as Any)"
        #expect(shown.contains("access_token=REDACTED#access_token=REDACTED&token_type=bearer"), "\(shown)")
        let everything = tracer.base.finishedSpans.map { "\($0.attributes) \($0.events)" }.joined()
            + logs.entries.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!everything.contains("QUERYSECRET1") && !everything.contains("FRAGMENTSECRET2"))
    }
}

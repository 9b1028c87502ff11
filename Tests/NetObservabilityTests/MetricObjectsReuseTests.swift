#if Observability  // the package trait
import Foundation
import InMemoryLogging
import Logging
import Metrics
import MetricsTestKit
import Net
@testable import NetObservability
import NetTestSupport
import Testing
import Tracing

/// swift-metrics' test factory, counting the meters and timers it is asked to make: how the
/// interceptor keeps its metric objects shows in how many it asks for.
final class CountingMetrics: MetricsFactory {
    let base = TestMetrics()
    private let made = LockedValue<(meters: Int, timers: Int)>((0, 0))

    var meters: Int { made.value.meters }
    var timers: Int { made.value.timers }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        base.makeCounter(label: label, dimensions: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        base.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        made.withLock { $0.meters += 1 }
        return base.makeMeter(label: label, dimensions: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        made.withLock { $0.timers += 1 }
        return base.makeTimer(label: label, dimensions: dimensions)
    }

    func destroyCounter(_ handler: any CounterHandler) { base.destroyCounter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { base.destroyRecorder(handler) }
    func destroyMeter(_ handler: any MeterHandler) { base.destroyMeter(handler) }
    func destroyTimer(_ handler: any TimerHandler) { base.destroyTimer(handler) }
}

/// A factory that is a value, forwarding to a ``CountingMetrics``: its identity cannot be told,
/// so nothing of it may be kept.
struct ValueMetrics: MetricsFactory {
    let counting: CountingMetrics

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        counting.makeCounter(label: label, dimensions: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        counting.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        counting.makeMeter(label: label, dimensions: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        counting.makeTimer(label: label, dimensions: dimensions)
    }

    func destroyCounter(_ handler: any CounterHandler) { counting.destroyCounter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { counting.destroyRecorder(handler) }
    func destroyMeter(_ handler: any MeterHandler) { counting.destroyMeter(handler) }
    func destroyTimer(_ handler: any TimerHandler) { counting.destroyTimer(handler) }
}

/// Sends every attempt to `https://moved.example` instead, as an interceptor placed before
/// `ObservabilityInterceptor` may.
struct MoveToOtherHost: NetworkInterceptor {
    func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
        var request = request
        request.url = try #require(URL(string: "https://moved.example/elsewhere"))
        return request
    }
}

/// The interceptor sits above the transport, so a stub answers: these tests are about which
/// metric objects it makes and keeps, not about the network.
@Suite("ObservabilityInterceptor keeps its metric objects from call to call")
struct MetricObjectsReuseTests {
    let metrics = CountingMetrics()

    /// Where the interceptor's metrics go: the suite's counting factory, none (so
    /// `MetricsSystem.factory`, as bound by `withMetricsFactory`), or another.
    enum Factory {
        case suite, system
        case given(any MetricsFactory)
    }

    /// A client on `stub` with `before`, then `ObservabilityInterceptor` (logging to `logs` from
    /// `.debug` up, when given).
    func client(_ before: [any NetworkInterceptor] = [], factory: Factory = .suite, tracer: any Tracer = NoOpTracer(),
                logs: InMemoryLogHandler? = nil, stub: StubTransport = StubTransport { _ in .text("ok") }) -> NetworkClient {
        let logger = logs.map { logs in
            var logger = Logger(label: "net-test") { _ in logs }
            logger.logLevel = .debug
            return logger
        }
        let metricsFactory: (any MetricsFactory)? = switch factory {
        case .suite: metrics
        case .system: nil
        case .given(let factory): factory
        }
        let observability = ObservabilityInterceptor(logger: logger, metricsFactory: metricsFactory, tracer: tracer)
        return NetworkClient(transport: stub, interceptors: before + [observability])
    }

    /// A target's metric dimensions, then `outcome`'s.
    func target(host: String = "a.example", port: String = "443", _ outcome: (String, String)...) -> [(String, String)] {
        [("http.request.method", "GET"), ("server.address", host), ("server.port", port), ("url.scheme", "https")] + outcome
    }

    @Test("one meter per method and origin, one timer per outcome: a path or a repeat makes none")
    func madeOncePerTarget() async throws {
        let client = client()
        _ = try await client.requestData(for: "https://a.example/x")
        _ = try await client.requestData(for: "https://a.example/y?page=2")
        _ = try await client.requestData(for: "https://a.example/x")
        #expect(metrics.meters == 1 && metrics.timers == 1)
        _ = try await client.requestData(for: try NetworkRequest(url: "https://a.example/x", httpMethod: .post))
        _ = try await client.requestData(for: "https://b.example:8443/")
        _ = try await client.requestData(for: "https://b.example:8443/z")
        #expect(metrics.meters == 3 && metrics.timers == 3)
        let b = target(host: "b.example", port: "8443")
        #expect(try metrics.base.expectTimer("http.client.request.duration", b + [("http.response.status_code", "200")]).values.count == 2)
        #expect(try metrics.base.expectMeter("http.client.active_requests", b).values == [1, 0, 1, 0])
    }

    @Test("each status gets its own timer, kept: a 404 after a 200 makes one more, the next 404 none")
    func timerPerOutcome() async throws {
        let client = client(stub: StubTransport { request in request.url.path == "/missing" ? .status(.notFound) : .text("ok") })
        _ = try await client.requestData(for: "https://a.example/x")
        #expect(metrics.meters == 1 && metrics.timers == 1)
        _ = try? await client.requestData(for: "https://a.example/missing")
        #expect(metrics.meters == 1 && metrics.timers == 2)
        _ = try? await client.requestData(for: "https://a.example/missing")
        #expect(metrics.meters == 1 && metrics.timers == 2)
        let notFound = try metrics.base.expectTimer("http.client.request.duration",
                                                    target(("http.response.status_code", "404"), ("error.type", "404")))
        #expect(notFound.values.count == 2)
    }

    @Test("past 64 outcomes for one target the timers stop being kept: a new status's timer is made per call, the kept ones reused")
    func boundedOutcomes() async throws {
        let client = client(stub: StubTransport { request in .status(HTTPCode(rawValue: Int(request.url.lastPathComponent) ?? 200)) })
        for status in 200..<264 { _ = try await client.requestData(for: "https://a.example/s/\(status)") }
        #expect(metrics.timers == 64)
        _ = try await client.requestData(for: "https://a.example/s/264")
        _ = try await client.requestData(for: "https://a.example/s/264")
        #expect(metrics.timers == 66)
        _ = try await client.requestData(for: "https://a.example/s/200")
        _ = try await client.requestData(for: "https://a.example/s/263")
        #expect(metrics.timers == 66 && metrics.meters == 1)
    }

    @Test("factories bound per task (withMetricsFactory) each get their own objects, never the other's")
    func factoryPerTask() async throws {
        let first = CountingMetrics()
        let second = CountingMetrics()
        let client = client(factory: .system)
        try await withMetricsFactory(first) { _ = try await client.requestData(for: "https://a.example/x") }
        try await withMetricsFactory(second) { _ = try await client.requestData(for: "https://a.example/x") }
        try await withMetricsFactory(first) { _ = try await client.requestData(for: "https://a.example/x") }
        #expect(first.meters == 1 && first.timers == 1)
        #expect(second.meters == 1 && second.timers == 1)
        let a = target(("http.response.status_code", "200"))
        #expect(try first.base.expectTimer("http.client.request.duration", a).values.count == 2)
        #expect(try second.base.expectTimer("http.client.request.duration", a).values.count == 1)
    }

    @Test("an origin spelled two ways is two targets, with the same dimensions")
    func originAsSpelled() async throws {
        let client = client()
        _ = try await client.requestData(for: "https://a.example/x")
        _ = try await client.requestData(for: "https://a.example:443/x")
        #expect(metrics.meters == 2 && metrics.timers == 2)
        #expect(try metrics.base.expectMeter("http.client.active_requests", target()).values == [1, 0, 1, 0])
    }

    @Test("a failed attempt's timer is keyed by its error type and kept")
    func errorOutcome() async throws {
        let client = client(stub: StubTransport { _ in .failure(.connectionLost("reset")) })
        _ = try? await client.requestData(for: "https://a.example/x")
        _ = try? await client.requestData(for: "https://a.example/x")
        #expect(metrics.meters == 1 && metrics.timers == 1)
        let type = NetworkMetrics.errorType(of: NetworkError.transport(.connectionLost("reset")))
        #expect(try metrics.base.expectTimer("http.client.request.duration", target(("error.type", type))).values.count == 2)
    }

    @Test("a factory that is a value is never kept: its objects are made for each call, given or bound per task")
    func valueFactory() async throws {
        let given = client(factory: .given(ValueMetrics(counting: metrics)))
        _ = try await given.requestData(for: "https://a.example/x")
        _ = try await given.requestData(for: "https://a.example/x")
        #expect(metrics.meters == 2 && metrics.timers == 2)
        let bound = CountingMetrics()
        let client = client(factory: .system)
        try await withMetricsFactory(ValueMetrics(counting: bound)) {
            _ = try await client.requestData(for: "https://a.example/x")
            _ = try await client.requestData(for: "https://a.example/x")
        }
        #expect(bound.meters == 2 && bound.timers == 2)
    }

    @Test("a full table makes room for a new factory by dropping the other factories' objects")
    func fullTableDropsOtherFactories() async throws {
        let first = CountingMetrics()
        let second = CountingMetrics()
        let client = client(factory: .system)
        try await withMetricsFactory(first) {
            for host in 0..<256 { _ = try await client.requestData(for: "https://h\(host).example/") }
        }
        #expect(first.meters == 256)
        try await withMetricsFactory(second) {
            _ = try await client.requestData(for: "https://b.example/")
            _ = try await client.requestData(for: "https://b.example/")
        }
        #expect(second.meters == 1)
        try await withMetricsFactory(first) { _ = try await client.requestData(for: "https://h0.example/") }
        #expect(first.meters == 257)  // its objects were dropped to make room
    }

    @Test("only a URL without a query or fragment counts as plain, and credentials give no origin")
    func originScan() throws {
        func scan(_ text: String) throws -> (String, Bool)? {
            try InstrumentTable.origin(of: #require(URL(string: text))).map { (String($0.origin), $0.plain) }
        }
        #expect(try scan("https://h/p")! == ("https://h", true))
        #expect(try scan("https://h")! == ("https://h", true))
        #expect(try scan("https://h?q=1")! == ("https://h", false))
        #expect(try scan("https://h/p?q=1")! == ("https://h", false))
        #expect(try scan("https://h:8443/p#f")! == ("https://h:8443", false))
        #expect(try scan("https://u:p@h/p") == nil)
    }

    @Test("a URL with credentials is never kept: its metric objects are made for each call")
    func credentialsNotKept() async throws {
        let client = client()
        _ = try await client.requestData(for: "https://user:secret@a.example/x")
        _ = try await client.requestData(for: "https://user:secret@a.example/x")
        #expect(metrics.meters == 2 && metrics.timers == 2)
    }

    @Test("past 256 targets the table stops growing: a new target's objects are made per call, the kept ones still reused")
    func boundedTable() async throws {
        let client = client()
        for host in 0..<256 { _ = try await client.requestData(for: "https://h\(host).example/") }
        #expect(metrics.meters == 256)
        _ = try await client.requestData(for: "https://overflow.example/")
        _ = try await client.requestData(for: "https://overflow.example/")
        #expect(metrics.meters == 258)
        _ = try await client.requestData(for: "https://h0.example/")
        _ = try await client.requestData(for: "https://h255.example/")
        #expect(metrics.meters == 258)
    }

    @Test("an attempt sent elsewhere than the call is timed under its own host")
    func attemptElsewhere() async throws {
        _ = try await client([MoveToOtherHost()]).requestData(for: "https://a.example/x")
        let moved = target(host: "moved.example", ("http.response.status_code", "200"))
        #expect(try metrics.base.expectTimer("http.client.request.duration", moved).values.count == 1)
        #expect(try metrics.base.expectMeter("http.client.active_requests", target()).values == [1, 0])
    }

    @Test("with NoOpTracer no trace fields are sent and no ServiceContext is bound; with a tracer that is not the no-op one the call's context is bound and the attempt's injected (the span path runs); the same log lines and metrics either way",
          arguments: [false, true])
    func tracers(traced: Bool) async throws {
        let logs = InMemoryLogHandler()
        let contextBound = LockedValue<Bool?>(nil)
        let stub = StubTransport { _ in
            contextBound.withLock { $0 = ServiceContext.current != nil }
            return .text("ok")
        }
        let tracer: any Tracer = traced ? W3CTestTracer() : NoOpTracer()
        _ = try await client(tracer: tracer, logs: logs, stub: stub).requestData(for: "https://a.example/x")
        let sent = try #require(stub.requests.first).request
        #expect(sent.headers.contains(name: "traceparent") == traced)
        #expect(contextBound.value == traced)
        #expect(logs.entries.count == 2)  // the call's line and the attempt's
        #expect(metrics.meters == 1 && metrics.timers == 1)
    }
}
#endif

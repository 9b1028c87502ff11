#if Observability && AsyncHTTPClient  // the package traits
import Foundation
import InMemoryTracing
import Instrumentation
import Net
import NetAsyncHTTPClient
import Testing
import Tracing

/// A tracer bootstrapped for the whole test process, once: it records spans and propagates
/// nothing, so the HTTP clients other suites create after it cannot see a difference.
enum ProcessWideTracer {
    static let tracer: SilentTracer = {
        let tracer = SilentTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()

    /// A tracer that records the spans it starts and injects no header.
    struct SilentTracer: Tracer {
        let base = InMemoryTracer()

        func startSpan<Instant: TracerInstant>(
            _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
            at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
        ) -> InMemorySpan {
            base.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
        }

        func activeSpan(identifiedBy context: InstrumentationContext) -> InMemorySpan? { base.activeSpan(identifiedBy: context) }

        func forceFlush() { base.forceFlush() }

        func inject<Carrier, Inject: Injector>(_ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject)
        where Carrier == Inject.Carrier {}

        func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract)
        where Carrier == Extract.Carrier {}

        /// The `url.path` attribute of every span started so far, ended or not.
        var recordedPaths: [String] {
            let attributes = base.finishedSpans.map(\.attributes) + base.activeSpans.map(\.attributes)
            return attributes.compactMap { attributes -> String? in
                guard case .string(let path) = attributes.get("url.path") else { return nil }
                return path
            }
        }
    }
}

@Suite("AsyncHTTPClientTransport leaves tracing to the pipeline")
struct AsyncHTTPClientTracingTests {
    @Test("with a tracer bootstrapped process-wide, an exchange starts no span of AsyncHTTPClient's own (whose attributes would carry the query unredacted)")
    func noSpanOfItsOwn() async throws {
        let global = ProcessWideTracer.tracer
        // Created after the bootstrap: AsyncHTTPClient reads the global tracer when its
        // configuration is made.
        let transport = AsyncHTTPClientTransport()
        let key = UUID().uuidString
        let base = try await ObservedServer.shared.baseURL()
        let request = try NetworkRequest(url: "\(base)/ok/\(key)", query: [.secret(key: "api_key", value: "secret")])
        // Read whole: AsyncHTTPClient's delegate API.
        let whole = try await transport.send(request, to: .memory)
        #expect(whole.head.statusCode == 200)
        // Streamed: its async API, which traces on a path of its own.
        let streamed = try await transport.exchange(request, progress: nil)
        for try await _ in streamed.body {}
        #expect(streamed.response.statusCode == 200)
        #expect(ObservedServer.arrivals.value.filter { $0.path.contains(key) }.count == 2)
        #expect(global.recordedPaths.filter { $0.contains(key) }.isEmpty)
    }
}
#endif

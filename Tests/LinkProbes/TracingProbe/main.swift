// Sends one GET to URL through AsyncHTTPClientTransport on each of AsyncHTTPClient's two request
// APIs (read whole into memory: the delegate API; streamed: the async API), with a tracer
// bootstrapped in `InstrumentationSystem` first, and prints one JSON line: the two statuses and
// the `url.path` attribute of every span the tracer was asked to start. A process of its own
// because the bootstrap is process-wide and once only: in the test process it would reach every
// client any later test creates.
//
//   TracingProbe URL
import Foundation
#if AsyncHTTPClient
import InMemoryTracing
import Instrumentation
import NetAsyncHTTPClient
import NetCore
import NetTransport
import Tracing

/// Records the spans it starts and injects nothing.
struct RecordingTracer: Tracer {
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

    /// The `url.path` attribute of every span started, ended or not ("-" for a span without one).
    var recordedPaths: [String] {
        (base.finishedSpans.map(\.attributes) + base.activeSpans.map(\.attributes)).map { attributes in
            guard case .string(let path) = attributes.get("url.path") else { return "-" }
            return path
        }
    }
}

struct Report: Encodable {
    let wholeStatus: Int, streamedStatus: Int, spanPaths: [String]
}

let tracer = RecordingTracer()
InstrumentationSystem.bootstrap(tracer)
// Made after the bootstrap: AsyncHTTPClient reads the global tracer when its configuration is made.
let transport = AsyncHTTPClientTransport()
let request = try NetworkRequest(url: CommandLine.arguments[1], query: [.secret(key: "api_key", value: "secret")])
let whole = try await transport.send(request, to: .memory)
let streamed = try await transport.exchange(request, progress: nil)
for try await _ in streamed.body {}
let report = Report(wholeStatus: whole.head.statusCode.rawValue, streamedStatus: streamed.response.statusCode.rawValue,
                    spanPaths: tracer.recordedPaths)
print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
#else
print("{}")
#endif

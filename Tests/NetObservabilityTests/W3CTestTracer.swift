#if Observability  // the package trait
import Foundation
import NetTestSupport
import InMemoryTracing
import Instrumentation
import Tracing

/// swift-distributed-tracing's in-memory tracer with W3C identifiers (32 and 16 hex digits) that
/// propagates a `traceparent` field, as an OpenTelemetry tracer does, so a test can match the
/// field a server received with the span that sent it.
struct W3CTestTracer: Tracer {
    let base: InMemoryTracer
    private let injections = IDCounter()

    init() {
        let counter = IDCounter()
        base = InMemoryTracer(idGenerator: .init(
            nextTraceID: { String(format: "%032x", counter.next() + 0x4bf9_2f35) },
            nextSpanID: { String(format: "%016x", counter.next() + 0x00f0_67aa) }))
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        base.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func activeSpan(identifiedBy context: InstrumentationContext) -> InMemorySpan? { base.activeSpan(identifiedBy: context) }

    func forceFlush() { base.forceFlush() }

    func inject<Carrier, Inject: Injector>(_ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject)
    where Carrier == Inject.Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
        // Only the first context this tracer propagates carries state, so the request of a retry
        // must lose its predecessor's.
        if injections.next() == 1 {
            injector.inject("net=\(span.spanID)", forKey: "tracestate", into: &carrier)
        }
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract)
    where Carrier == Extract.Carrier {}

    /// The `traceparent` a span's context is sent as.
    static func traceparent(traceID: String, spanID: String) -> String { "00-\(traceID)-\(spanID)-01" }
}

/// Distinct numbers, from any thread.
struct IDCounter: Sendable {
    private let value = LockedValue(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}
#endif

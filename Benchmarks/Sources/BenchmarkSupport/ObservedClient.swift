import Logging
import Metrics
import Net
import NetObservability
import Tracing

/// §10's clients: `NetworkClient` on a canned transport with `ObservabilityInterceptor`, its
/// logger and metrics no-ops, and either swift-distributed-tracing's `NoOpTracer` (which the
/// interceptor recognises and skips) or ``NonRecordingTracer`` (whose spans it starts, ends and
/// binds as it would a real tracer's).
public enum ObservedClient {
    /// `traced`: ``NonRecordingTracer``, else `NoOpTracer`. `factoryGiven`: the no-op factory
    /// passed to the interceptor, else none (it then asks `MetricsSystem`, whose factory is the
    /// no-op one when nothing was bootstrapped, on every call).
    public static func make(traced: Bool, factoryGiven: Bool = true) throws -> NetworkClient {
        let tracer: any Tracer = traced ? NonRecordingTracer() : NoOpTracer()
        let observability = ObservabilityInterceptor(
            logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() },
            metricsFactory: factoryGiven ? NOOPMetricsHandler.instance : nil, tracer: tracer)
        return NetworkClient(transport: try CannedTransport(), interceptors: [observability])
    }
}

/// A tracer that is not `NoOpTracer` and keeps nothing: its spans do not record and it injects
/// nothing, so what remains is the interceptor's own work on the span path.
public struct NonRecordingTracer: Tracer {
    public init() {}

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> NoOpTracer.NoOpSpan {
        NoOpTracer.NoOpSpan(context: context())
    }

    public func forceFlush() {}

    public func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Carrier == Inject.Carrier {}

    public func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Carrier == Extract.Carrier {}
}

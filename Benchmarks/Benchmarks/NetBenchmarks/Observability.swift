import Benchmark
import BenchmarkSupport
import Foundation
import Logging
import Metrics
import Net
import NetObservability
import Tracing

/// 10. What observing a call costs, on a canned transport (no I/O), against
/// "Client features: NetworkClient on a canned transport (baseline)" (which records every call's
/// `NetworkMetrics`): what a call interceptor that only proceeds adds, then `ObservabilityInterceptor` with no-op backends (swift-log's, swift-metrics' and
/// swift-distributed-tracing's), so what is left is Net's own work: names, dimensions, spans'
/// attributes, the injected context (target: < 2 µs and < 20 allocations per call).
func observabilityBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds, warmupIterations: 100, scalingFactor: .kilo, maxDuration: .seconds(3))

    Benchmark("Observability: + a call interceptor that only proceeds", configuration: configuration) { benchmark in
        let client = NetworkClient(transport: try CannedTransport(), interceptors: [ProceedOnly()])
        let request = try NetworkRequest(url: "https://api.example.com/items")
        for _ in benchmark.scaledIterations {
            blackHole(try await client.requestData(for: request))
        }
    }

    Benchmark("Observability: + ObservabilityInterceptor, no-op backends", configuration: configuration) { benchmark in
        let observability = ObservabilityInterceptor(
            logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() },
            metricsFactory: NOOPMetricsHandler.instance, tracer: NoOpTracer())
        let client = NetworkClient(transport: try CannedTransport(), interceptors: [observability])
        let request = try NetworkRequest(url: "https://api.example.com/items")
        for _ in benchmark.scaledIterations {
            blackHole(try await client.requestData(for: request))
        }
    }
}

/// A call interceptor that does nothing but proceed: the cost of the hook itself.
struct ProceedOnly: NetworkCallInterceptor {
    func interceptCall(
        _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
    ) async throws -> NetworkCallResult {
        await proceed(request)
    }
}

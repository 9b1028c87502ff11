import Benchmark
import BenchmarkSupport
import Foundation
import Net

/// 10. What observing a call costs, on a canned transport (no I/O), against
/// "Client features: NetworkClient on a canned transport (baseline)" (which records every call's
/// `NetworkMetrics`): what a call interceptor that only proceeds adds, then `ObservabilityInterceptor` with no-op backends (swift-log's, swift-metrics' and
/// swift-distributed-tracing's), so what is left is Net's own work: the metric objects, the
/// attempt's timing, the call's state (target: < 2 µs and < 20 allocations per call). The
/// interceptor skips spans for `NoOpTracer`; the last benchmark gives it a tracer that is not
/// the no-op one and records nothing (BenchmarkSupport's `NonRecordingTracer`), for what the
/// span path costs.
func observabilityBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds, warmupIterations: 100, scalingFactor: .kilo, maxDuration: .seconds(3))

    let clients: [(name: String, make: () throws -> NetworkClient)] = [
        ("Observability: + a call interceptor that only proceeds",
         { NetworkClient(transport: try CannedTransport(), interceptors: [ProceedOnly()]) }),
        ("Observability: + ObservabilityInterceptor, no-op backends", { try ObservedClient.make(traced: false) }),
        ("Observability: + ObservabilityInterceptor, a tracer whose spans do not record", { try ObservedClient.make(traced: true) }),
    ]
    for (name, make) in clients {
        Benchmark(name, configuration: configuration) { benchmark in
            let client = try make()
            let request = try NetworkRequest(url: "https://api.example.com/items")
            for _ in benchmark.scaledIterations {
                blackHole(try await client.requestData(for: request))
            }
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

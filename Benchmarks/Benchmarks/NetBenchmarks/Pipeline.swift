import Benchmark
import BenchmarkSupport
import Foundation
import Net

/// 1. The cost of a request through `NetworkSession` (target: under 5 µs and 40 allocations).
func pipelineBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds, warmupIterations: 100, scalingFactor: .kilo, maxDuration: .seconds(3))

    Benchmark("Pipeline: NetworkSession on StubTransport (canned body)", configuration: configuration) { benchmark in
        let stub = StubTransport { _ in .text("ok") }
        let session = BareSession(transport: stub)
        let request = try NetworkRequest(url: "https://api.example.com/items")
        for _ in benchmark.scaledIterations {
            blackHole(try await session.requestData(for: request))
        }
        // The stub records every request; forget them outside the measurement's hot loop.
        benchmark.stopMeasurement()
        stub.reset()
    }

    Benchmark("Pipeline: NetworkClient + RetryPolicy on StubTransport", configuration: configuration) { benchmark in
        let stub = StubTransport { _ in .text("ok") }
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy()])
        let request = try NetworkRequest(url: "https://api.example.com/items")
        for _ in benchmark.scaledIterations {
            blackHole(try await client.requestData(for: request))
        }
        benchmark.stopMeasurement()
        stub.reset()
    }

    Benchmark("Pipeline: NetworkSession on a canned transport (session layer alone)", configuration: configuration) { benchmark in
        let session = BareSession(transport: try CannedTransport())
        let request = try NetworkRequest(url: "https://api.example.com/items")
        for _ in benchmark.scaledIterations {
            blackHole(try await session.requestData(for: request))
        }
    }

    Benchmark("Pipeline: StubTransport.exchange alone", configuration: configuration) { benchmark in
        let stub = StubTransport { _ in .text("ok") }
        let request = try NetworkRequest(url: "https://api.example.com/items")
        for _ in benchmark.scaledIterations {
            blackHole(try await stub.exchange(request, progress: nil).body.collect())
        }
        benchmark.stopMeasurement()
        stub.reset()
    }
}

/// The cache's hit path (target: a fresh memory hit under 10 µs, no network round trip).
func cacheBenchmarks() {
    Benchmark(
        "Cache: fresh memory hit through NetworkClient (1 KiB body)",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, .throughput], timeUnits: .nanoseconds,
            warmupIterations: 100, scalingFactor: .kilo, maxDuration: .seconds(3))
    ) { benchmark in
        let client = NetworkClient(transport: try CannedTransport(body: Data(repeating: 0x61, count: 1_024), cacheable: true), cache: .memory())
        let request = try NetworkRequest(url: "https://api.example.com/items")
        _ = try await client.requestData(for: request)  // stored
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let response = try await client.requestData(for: request)
            precondition(response.response.cacheStatus == .cache)
            blackHole(response)
        }
    }
}

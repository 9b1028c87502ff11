import Benchmark
import BenchmarkSupport
import Foundation
import Net

/// 4. Reachability: re-reading the path, idle CPU with a notifier running, and the latency from a
/// link change in a network namespace of the benchmark's own to the stream's element.
func reachabilityBenchmarks() {
    Benchmark(
        "Reachability: currentPath() re-read",
        configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput], timeUnits: .microseconds, maxDuration: .seconds(3))
    ) { benchmark in
        let reachability = try NetworkReachability()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try reachability.currentPath())
        }
    }

    Benchmark(
        "Reachability: process CPU over 10 s idle with a notifier running",
        configuration: .init(
            metrics: [.custom("CPU µs per 10 s", polarity: .prefersSmaller, useScalingFactor: false)],
            warmupIterations: 0, maxDuration: .seconds(70), maxIterations: 5)
    ) { benchmark in
        let reachability = try NetworkReachability()
        var paths = try reachability.startNotifier().makeAsyncIterator()
        _ = try await paths.next()
        let before = ProcessProbe.cpuMicroseconds()
        try await Task.sleep(for: .seconds(10))
        benchmark.measurement(.custom("CPU µs per 10 s", polarity: .prefersSmaller, useScalingFactor: false), ProcessProbe.cpuMicroseconds() - before)
        reachability.stopNotifier()
    }

    for debounce in [Duration.zero, .milliseconds(50)] {
        let label = debounce == .zero ? "no debounce" : "default 50 ms debounce"
        Benchmark(
            "Reachability: link change to stream element, \(label)",
            configuration: .init(
                metrics: [.custom("latency µs", polarity: .prefersSmaller, useScalingFactor: false)],
                warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 1)
        ) { benchmark in
            let latencies = try LinkChangeLatency.measure(debounce: debounce, samples: 40)
            for latency in latencies {
                benchmark.measurement(.custom("latency µs", polarity: .prefersSmaller, useScalingFactor: false), latency)
            }
            let sorted = latencies.sorted()
            print("reachability latency, \(label): median \(sorted[sorted.count / 2]) µs, p99 \(sorted[sorted.count * 99 / 100]) µs over \(sorted.count) carrier losses")
        }
    }
}

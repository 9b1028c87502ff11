import Benchmark
import BenchmarkSupport
import Foundation
import Net

/// §2 of Docs/Benchmarks.md (100 MB transfers), and small GETs one after another and 64 in flight
/// through each client (package-benchmark's regression checks; §0's NetLoad figures are the comparison).
func httpBenchmarks() {
    // package-benchmark's own CPU metric ticks in 10 ms steps; this one is getrusage's, per request
    // (the whole process: the client alone with NET_BENCH_SERVER, as Benchmarks/full-run.sh runs
    // it; else the client and the in-process server, which is the same for every client).
    let cpuPerRequest = BenchmarkMetric.custom("CPU µs per request (process)", polarity: .prefersSmaller, useScalingFactor: false)
    let metrics: [BenchmarkMetric] = [.throughput, .wallClock, cpuPerRequest, .peakMemoryResident]
    for client in ComparedClient.allCases {
        Benchmark(
            "HTTP small GET sequential: \(client.rawValue)",
            configuration: .init(metrics: metrics, timeUnits: .microseconds, warmupIterations: 200, maxDuration: .seconds(4), maxIterations: 100_000)
        ) { benchmark in
            let url = try await LoopbackServer.baseURL().appendingPathComponent("small")
            benchmark.startMeasurement()
            let cpu = ProcessProbe.cpuMicroseconds()
            for _ in benchmark.scaledIterations {
                blackHole(try await client.get(url))
            }
            benchmark.measurement(cpuPerRequest, (ProcessProbe.cpuMicroseconds() - cpu) / benchmark.scaledIterations.count)
        }

        // One iteration is 64 requests at once: requests/s is 64 × the throughput shown.
        Benchmark(
            "HTTP small GET 64 in flight (64 per iteration): \(client.rawValue)",
            configuration: .init(metrics: metrics, timeUnits: .milliseconds, warmupIterations: 5, maxDuration: .seconds(4), maxIterations: 10_000)
        ) { benchmark in
            let url = try await LoopbackServer.baseURL().appendingPathComponent("small")
            benchmark.startMeasurement()
            let cpu = ProcessProbe.cpuMicroseconds()
            for _ in benchmark.scaledIterations {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<64 { group.addTask { try await client.get(url) } }
                    for try await length in group { blackHole(length) }
                }
            }
            benchmark.measurement(cpuPerRequest, (ProcessProbe.cpuMicroseconds() - cpu) / (64 * benchmark.scaledIterations.count))
        }
    }
}

/// 2 (continued). 100 MB down to memory, down to a file, and up from memory and from a file
/// (`TransferWorkload`, which `NetLoad transfer` runs one process at a time for the medians of 5
/// processes Docs/Benchmarks.md publishes).
func transferBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .peakMemoryResident], timeUnits: .milliseconds,
        warmupIterations: 1, maxDuration: .seconds(6), maxIterations: 5)
    let workloads: [(TransferWorkload, String)] = [
        (.get100mb, "download to memory"), (.dlfile100mb, "download to file"),
        (.up100mb, "upload from memory"), (.upfile100mb, "upload from file"),
    ]
    for client in ComparedClient.allCases {
        for (workload, name) in workloads {
            Benchmark("HTTP 100 MB \(name): \(client.rawValue)", configuration: configuration) { benchmark in
                let (transfer, cleanUp) = try workload.transfer(with: client, base: try await LoopbackServer.baseURL())
                defer { cleanUp() }
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { try await transfer() }
                benchmark.stopMeasurement()
            }
        }
    }
}

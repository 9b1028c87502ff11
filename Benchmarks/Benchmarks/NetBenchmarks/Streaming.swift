import Benchmark
import BenchmarkSupport

/// 7. 1 GiB read as it arrives: Net's `requestStream` on AsyncHTTPClientTransport against raw
/// AsyncHTTPClient configured the same way (redirects off, the same decompression limit, 8
/// connections per host, no deadline during the body), and on URLSessionTransport beside raw URLSession
/// through a delegate, for the record (`TransferWorkload.stream1g`; `NetLoad transfer` runs the
/// same calls one process at a time, for Docs/Benchmarks.md's medians of 5 processes). Each client
/// is `ComparedClient`'s one per process, as in NetLoad (before f7fd0ac each benchmark made its own).
/// Target: Net-AHC ≥ 0.9× raw AHC's throughput, peak resident growth ≤ 32 MiB.
func streamingBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .peakMemoryResident], timeUnits: .milliseconds,
        warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 5)
    let names: [ComparedClient: String] = [
        .asyncHTTPClient: "AsyncHTTPClient (same configuration as Net's transport)",
        .urlSession: "raw URLSession through a delegate (same configuration as Net's transport)",
        .netAHC: "Net requestStream on AsyncHTTPClientTransport",
        .net: "Net requestStream on URLSessionTransport",
    ]
    for client in ComparedClient.allCases {
        Benchmark("Stream 1 GiB: \(names[client] ?? client.rawValue)", configuration: configuration) { benchmark in
            let (stream, _) = try TransferWorkload.stream1g.transfer(with: client, base: try await LoopbackServer.baseURL())
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { try await stream() }
            benchmark.stopMeasurement()
        }
    }
}

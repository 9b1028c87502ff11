import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import Foundation
import Net
import NetAsyncHTTPClient
import NIOCore

/// 7. 1 GiB read as it arrives: Net's `requestStream` on AsyncHTTPClientTransport against raw
/// AsyncHTTPClient configured the same way (redirects off, the same decompression limit, 8
/// connections per host, no deadline during the body), and on URLSessionTransport for the record.
/// Target: Net-AHC ≥ 0.9× raw AHC's throughput, peak resident growth ≤ 32 MiB.
func streamingBenchmarks() {
    let size = 1 << 30
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .peakMemoryResident], timeUnits: .milliseconds,
        warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 5)

    Benchmark("Stream 1 GiB: AsyncHTTPClient (same configuration as Net's transport)", configuration: configuration) { benchmark in
        // 8 connections, AsyncHTTPClientTransport's default.
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .likeNetsTransport(connectionsPerHost: 8))
        let url = try await LoopbackServer.baseURL().appendingPathComponent("bytes/\(size)")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), deadline: .distantFuture)
            var received = 0
            for try await chunk in response.body { received += chunk.readableBytes }
            precondition(received == size)
        }
        benchmark.stopMeasurement()
        try await client.shutdown()
    }

    for (name, transport) in [("AsyncHTTPClientTransport", { AsyncHTTPClientTransport() as any Transport }),
                              ("URLSessionTransport", { URLSessionTransport() as any Transport })] {
        Benchmark("Stream 1 GiB: Net requestStream on \(name)", configuration: configuration) { benchmark in
            let client = NetworkClient(transport: transport())
            let url = try await LoopbackServer.baseURL().appendingPathComponent("bytes/\(size)")
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let stream = try await client.requestStream(for: url)
                var received = 0
                for try await chunk in stream.body { received += chunk.count }
                precondition(received == size)
            }
        }
    }
}

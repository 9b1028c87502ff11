import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import Foundation
import Net
import NetAsyncHTTPClient
import NIOCore
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// 7. 1 GiB read as it arrives: Net's `requestStream` on AsyncHTTPClientTransport against raw
/// AsyncHTTPClient configured the same way (redirects off, the same decompression limit, 8
/// connections per host, no deadline during the body), and on URLSessionTransport beside raw URLSession
/// through a delegate, for the record.
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

    // What the pipeline issue asks Net on URLSessionTransport to be reported beside: raw
    // URLSession's own streaming on Linux, a data task whose delegate sees each chunk as it arrives.
    Benchmark("Stream 1 GiB: raw URLSession through a delegate (same configuration as Net's transport)", configuration: configuration) { benchmark in
        let delegate = CountingDelegate()
        let session = URLSession(configuration: .likeNetsTransport(connectionsPerHost: 8), delegate: delegate, delegateQueue: nil)
        let url = try await LoopbackServer.baseURL().appendingPathComponent("bytes/\(size)")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let received = try await delegate.count(session.dataTask(with: URLRequest(url: url)))
            precondition(received == size)
        }
        benchmark.stopMeasurement()
        session.finishTasksAndInvalidate()
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

/// Raw URLSession's streaming as a hand-written delegate does it on Linux: each chunk counted as it
/// arrives and dropped, the count handed back when the task completes; redirects not followed.
final class CountingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Count: Sendable {
        var bytes = 0
        var continuation: CheckedContinuation<Int, any Error>
    }

    private let counts = Mutex<[Int: Count]>([:])

    /// Resumes `task`, made on a session whose delegate this is, and returns how many body bytes
    /// arrived.
    func count(_ task: URLSessionDataTask) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            counts.withLock { $0[task.taskIdentifier] = Count(continuation: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        counts.withLock { $0[dataTask.taskIdentifier]?.bytes += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let count = counts.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            count.continuation.resume(throwing: error)
        } else {
            count.continuation.resume(returning: count.bytes)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

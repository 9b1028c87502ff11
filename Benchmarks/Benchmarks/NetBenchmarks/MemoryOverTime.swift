import Benchmark
import BenchmarkSupport
import Foundation
import Net

/// 5. 100,000 small GETs with 64 in flight through one session on URLSessionTransport: resident
/// memory and open descriptors at the start, after 10 %, in the middle and at the end (reported as
/// custom metrics, and printed).
func memoryOverTimeBenchmarks() {
    // Net on URLSessionTransport, and raw URLSession beside it, so that growth can be attributed.
    for client in [ComparedClient.net, .urlSession] {
        Benchmark(
            "Memory over time: 100,000 GETs, 64 in flight, one session: \(client.rawValue)",
            configuration: .init(
                metrics: [.wallClock, .peakMemoryResident]
                    + ["rss start KiB", "rss 10% KiB", "rss 50% KiB", "rss end KiB", "fds start", "fds 10%", "fds 50%", "fds end"]
                        .map { .custom($0, polarity: .prefersSmaller, useScalingFactor: false) },
                timeUnits: .seconds, warmupIterations: 0, maxDuration: .seconds(600), maxIterations: 1)
        ) { benchmark in
            let url = try await LoopbackServer.baseURL().appendingPathComponent("small")
            @Sendable func get() async -> Bool {
                switch client {
                case .net: (try? await ComparedClient.netOnURLSession.requestData(for: url).statusCode == 200) ?? false
                default: (try? await client.get(url)) == 2
                }
            }
            let total = 100_000
            var checkpoints: [(String, Int)] = [("10%", total / 10), ("50%", total / 2), ("end", total)]
            var completed = 0
            var failures = 0
            func record(_ label: String) {
                let rss = ProcessProbe.residentKiB()
                let fds = ProcessProbe.openDescriptors()
                benchmark.measurement(.custom("rss \(label) KiB", polarity: .prefersSmaller, useScalingFactor: false), rss)
                benchmark.measurement(.custom("fds \(label)", polarity: .prefersSmaller, useScalingFactor: false), fds)
                print("memory over time: \(label): \(completed) requests, resident \(rss) KiB, \(fds) descriptors, \(failures) failures")
            }
            benchmark.startMeasurement()
            record("start")
            try await withThrowingTaskGroup(of: Bool.self) { group in
                var started = 0
                for _ in 0..<64 {
                    started += 1
                    group.addTask { await get() }
                }
                while let succeeded = try await group.next() {
                    completed += 1
                    if !succeeded { failures += 1 }
                    if let checkpoint = checkpoints.first, completed >= checkpoint.1 {
                        record(checkpoint.0)
                        checkpoints.removeFirst()
                    }
                    if started < total {
                        started += 1
                        group.addTask { await get() }
                    }
                }
            }
            precondition(failures == 0, "\(failures) of \(total) requests failed")
        }
    }
}

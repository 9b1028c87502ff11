import BenchmarkSupport
import Foundation
import Net

/// From the server writing a Server-Sent Event to the event reaching the caller of
/// `eventSource(for:)`: each event carries its write time on the machine-wide monotonic clock.
/// Prints each run's p50/p90/p99 and then the medians of the runs with min–max.
func measureEventLatency(client: LoadClient, base: URL, events: Int, runs: Int) async throws {
    let session: BareSession
    switch client {
    case .netAHC: session = LoadClient.netAHCSession
    case .netURLSession: session = LoadClient.netURLSessionSession
    default:
        FileHandle.standardError.write(Data("sse-latency: net-ahc or net-urlsession\n".utf8))
        exit(2)
    }
    let url = "\(base.absoluteString)/events/timed?count=\(events)&gap-ms=5"
    var medians: [Double] = []
    for run in 0...runs {
        var latencies: [Double] = []
        latencies.reserveCapacity(events)
        let source = session.eventSource(for: url, reconnection: EventSourceReconnection(maximumAttempts: 1))
        do {
            for try await event in source {
                let now = MonotonicTime.nanoseconds()
                guard let written = UInt64(event.data) else { continue }
                latencies.append(Double(now &- written) / 1_000)
                if latencies.count == events { break }
            }
        } catch NetworkError.stream(.reconnectionsExhausted) {
            // The server ended the stream after its last event.
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        guard run > 0 else { continue }  // the first run warms up the connection pool and the code
        medians.append(percentile(0.5))
        print("\(client.rawValue) sse-latency run \(run): p50 \(format(percentile(0.5))) µs, p90 \(format(percentile(0.9))) µs, p99 \(format(percentile(0.99))) µs over \(latencies.count) events")
    }
    print("\(client.rawValue) sse-latency median p50: \(medianRange(medians, unit: "µs", format))")
}

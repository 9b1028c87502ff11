import Benchmark
import BenchmarkSupport
import Foundation
import Net

/// What the opt-in client features add to a request, each against the same client without it,
/// on a canned transport (no I/O): a cookie jar sending five cookies, and a HAR recorder (of an
/// untyped `ok`, and of a JSON answer).
func clientFeatureBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds, warmupIterations: 100, scalingFactor: .kilo, maxDuration: .seconds(3))

    Benchmark("Client features: NetworkClient on a canned transport (baseline)", configuration: configuration) { benchmark in
        let client = NetworkClient(transport: try CannedTransport())
        let request = try NetworkRequest(url: "https://api.example.com/items")
        for _ in benchmark.scaledIterations {
            blackHole(try await client.requestData(for: request))
        }
    }

    Benchmark("Client features: + cookie jar sending 5 cookies", configuration: configuration) { benchmark in
        let cookies = (0..<5).map { NetworkCookie(name: "c\($0)", value: "value-\($0)", domain: "api.example.com") }
        let client = NetworkClient(transport: try CannedTransport(), cookieJar: CookieJar(cookies: cookies))
        let request = try NetworkRequest(url: "https://api.example.com/items")
        for _ in benchmark.scaledIterations {
            blackHole(try await client.requestData(for: request))
        }
    }

    Benchmark("Client features: + HAR recorder, a JSON answer", configuration: configuration) { benchmark in
        // A typed body, as an API answers: its media type read, its keys checked for credentials.
        let body = Data(#"{"id":42,"name":"Widget","price":9.99,"tags":["a","b"],"owner":{"id":7,"login":"ann"}}"#.utf8)
        let recorder = HARRecorder(maximumEntries: .max)
        let client = NetworkClient(transport: recorder.recording(try CannedTransport(body: body, contentType: "application/json; charset=utf-8")))
        let request = try NetworkRequest(url: "https://api.example.com/items")
        for _ in benchmark.scaledIterations {
            blackHole(try await client.requestData(for: request))
        }
    }

    Benchmark("Client features: + HAR recorder", configuration: configuration) { benchmark in
        // Every entry kept (no cap reached), so each iteration pays for a whole recording.
        let recorder = HARRecorder(maximumEntries: .max)
        let client = NetworkClient(transport: recorder.recording(try CannedTransport()))
        let request = try NetworkRequest(url: "https://api.example.com/items")
        for _ in benchmark.scaledIterations {
            blackHole(try await client.requestData(for: request))
        }
    }
}

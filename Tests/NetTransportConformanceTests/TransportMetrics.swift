import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// `NetworkMetrics` as each transport fills it, against the loopback server: phase times that
/// follow from what the server did (a head delayed by a known time cannot arrive sooner), bytes
/// moved, redirects and retries as attempts. Neither transport can see DNS, connect or TLS times
/// (URLSession on Linux never delivers `URLSessionTaskMetrics`; AsyncHTTPClient's request API
/// exposes no connection events), so those phases must be absent rather than zero.
enum TransportMetrics {
    /// One check, named.
    struct Check: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (@escaping @Sendable () -> any Transport) async throws -> Void
        var testDescription: String { name }
    }

    /// Retries every call once, whatever its first attempt gave.
    struct RetryOnce: NetworkInterceptor {
        func interceptResponse(
            _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
        ) async throws -> NetworkSessionInterceptionResult {
            retryNumber == 0 ? .retry(request) : .nothing
        }
    }

    static let checks: [Check] = [
        Check(name: "a head delayed 300 ms arrives no sooner; the phases follow in order; unseen phases are absent") { make in
            let client = NetworkClient(transport: make(), maximumConcurrentRequests: 4)
            let response = try await client.requestData(for: try await TransportConformance.request("/delay/300"))
            let metrics = response.metrics
            let attempt = try #require(metrics.attempts.first)
            #expect(metrics.attempts.count == 1 && metrics.retries.isEmpty && metrics.redirectCount == 0)
            #expect(attempt.statusCode == 200 && attempt.cacheStatus == .network && attempt.errorType == nil)
            let firstByte = try #require(attempt.time(of: .firstByte))
            let bodyComplete = try #require(attempt.time(of: .bodyComplete))
            let queued = try #require(attempt.time(of: .queued))
            #expect(firstByte >= .milliseconds(300), "the server held its head for 300 ms")
            #expect(attempt.started <= queued && queued <= firstByte && firstByte <= bodyComplete)
            #expect(try #require(metrics.duration) >= bodyComplete)
            #expect(attempt.responseBodyBytes == 4)
            for unseen in [NetworkMetrics.Phase.nameLookup, .connect, .secureConnect, .requestSent] {
                #expect(attempt.time(of: unseen) == nil, "\(unseen.label) is not reported by this transport")
            }
        },
        Check(name: "an upload counts its body bytes and is sent before its response's first byte") { make in
            let client = NetworkClient(transport: make())
            let body = TestPattern.bytes(count: 300_000)
            let response = try await client.requestUpload(for: try await TransportConformance.request("/echo", method: .post), from: body)
            #expect(try TransportConformance.Echo(response.data).bodyLength == 300_000)
            let attempt = try #require(response.metrics.attempts.first)
            #expect(attempt.requestBodyBytes == 300_000)
            let sent = try #require(attempt.time(of: .requestSent))
            #expect(sent <= (attempt.time(of: .firstByte) ?? .zero))
        },
        Check(name: "a small body sent with a data call counts its bytes and is sent before its response's first byte") { make in
            // Read whole into memory with a body under one upload chunk: AsyncHTTPClientTransport
            // sends it as one buffer and reports it once written.
            let client = NetworkClient(transport: make())
            var request = try await TransportConformance.request("/echo", method: .post)
            request.body = .data(TestPattern.bytes(count: 1_000))
            let response = try await client.requestData(for: request)
            #expect(try TransportConformance.Echo(response.data).bodyLength == 1_000)
            let attempt = try #require(response.metrics.attempts.first)
            #expect(attempt.requestBodyBytes == 1_000)
            let sent = try #require(attempt.time(of: .requestSent))
            #expect(sent <= (attempt.time(of: .firstByte) ?? .zero))
        },
        Check(name: "a redirect and a retry are attempts of their own, and the retry says who asked and why") { make in
            let client = NetworkClient(transport: make(), interceptors: [RetryOnce()])
            let url = try await TransportConformance.request("/redirect/302?to=/bytes/10")
            let metrics = try await client.requestData(for: url).metrics
            #expect(metrics.attempts.map(\.statusCode) == [302, 200, 302, 200])
            #expect(metrics.attempts.map(\.retryNumber) == [0, 0, 1, 1])
            #expect(metrics.attempts.map(\.redirectNumber) == [0, 1, 0, 1])
            #expect(metrics.redirectCount == 2)
            #expect(metrics.retries == [NetworkMetrics.Retry(afterAttempt: 1, reason: "200", requestedBy: "RetryOnce")])
            #expect(metrics.attempts.map { $0.responseBodyBytes } == [nil, 10, nil, 10])
            let starts = metrics.attempts.map(\.started)
            #expect(starts == starts.sorted())
        },
    ]
}

@Suite("Metrics: URLSessionTransport")
struct URLSessionTransportMetricsTests {
    @Test("URLSessionTransport", arguments: TransportMetrics.checks)
    func metrics(_ check: TransportMetrics.Check) async throws {
        try await check.run { URLSessionTransport() }
    }
}

#if AsyncHTTPClient  // the package trait
import NetAsyncHTTPClient

@Suite("Metrics: AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportMetricsTests {
    @Test("AsyncHTTPClientTransport", arguments: TransportMetrics.checks)
    func metrics(_ check: TransportMetrics.Check) async throws {
        try await check.run { AsyncHTTPClientTransport() }
    }
}
#endif

import Foundation
import Net
import Synchronization
import Testing

/// Docs/Observability.md's samples that need no opt-in product, verbatim
/// (``DocumentationCoverageTests`` checks), run against `StubTransport`.
@Suite("Docs/Observability.md samples")
struct ObservabilityDocumentationSamples {
    struct CallTimer: NetworkCallInterceptor {
        let report: @Sendable (String) -> Void
        func interceptCall(
            _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
        ) async throws -> NetworkCallResult {
            let result = await proceed(request)
            let outcome = result.response.map { "\($0.statusCode)" } ?? "failed"
            report("\(request.httpMethod) → \(outcome) in \(result.metrics.duration ?? .zero)")
            return result
        }
    }

    func printAttempts(client: NetworkClient) async throws {
        let response = try await client.requestData(for: "https://api.example.com/films")
        for attempt in response.metrics.attempts {
            let firstByte = attempt.time(of: .firstByte).map { "\($0)" } ?? "not seen"
            print("\(attempt.method) \(attempt.redactedURL) → \(attempt.statusCode?.rawValue ?? 0), first byte after \(firstByte)")
        }
        print("retries: \(response.metrics.retries.map(\.reason)), redirects: \(response.metrics.redirectCount)")
    }

    /// Retries a 503 once.
    struct RetryOnce: NetworkInterceptor {
        func interceptResponse(
            _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
        ) async throws -> NetworkSessionInterceptionResult {
            if case .success(let response) = result, response.statusCode == 503, retryNumber == 0 { return .retry(request) }
            return .nothing
        }
    }

    @Test("the call timer sees one call around both attempts of a retried request; the metrics list both")
    func callTimer() async throws {
        let stub = StubTransport()
        stub.on(nil, "*", respond: StubResponse.status(.serviceUnavailable))
        let lines = Mutex<[String]>([])
        let timer = CallTimer { line in lines.withLock { $0.append(line) } }
        let client = NetworkClient(transport: stub, interceptors: [timer, RetryOnce()])
        let response = try await client.requestData(for: "https://api.example.com/films")
        #expect(response.metrics.attempts.count == 2)
        #expect(response.metrics.retries.map(\.reason) == ["503"])
        #expect(response.metrics.retries.first?.requestedBy == "RetryOnce")
        let reported = lines.withLock { $0 }
        #expect(reported.count == 1 && reported[0].hasPrefix("GET → 503 Service Unavailable in "))
        try await printAttempts(client: client)
        #expect(lines.withLock { $0.count } == 2)
    }
}

/// Docs/Observability.md's `whenFinished` sample.
@Suite("Docs/Observability.md samples: whenFinished")
struct StreamTimerDocumentationSample {
    struct StreamTimer: NetworkCallInterceptor {
        let report: @Sendable (String) -> Void
        func interceptCall(
            _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
        ) async throws -> NetworkCallResult {
            await proceed(request).whenFinished { end in
                let bytes = end.metrics.attempts.last?.responseBodyBytes ?? 0
                report("\(request.httpMethod): \(bytes) bytes in \(end.metrics.duration ?? .zero)")
            }
        }
    }

    @Test("the stream timer reports once the body has been read, with its size")
    func streamTimer() async throws {
        let stub = StubTransport()
        stub.on(nil, "*", respond: .text("twelve bytes"))
        let lines = Mutex<[String]>([])
        let client = NetworkClient(transport: stub, interceptors: [StreamTimer { line in lines.withLock { $0.append(line) } }])
        let stream = try await client.requestStream(for: "https://api.example.com/log")
        #expect(lines.withLock { $0.isEmpty })
        for try await _ in stream.body {}
        let reported = lines.withLock { $0 }
        #expect(reported.count == 1 && reported[0].hasPrefix("GET: 12 bytes in "))
    }
}

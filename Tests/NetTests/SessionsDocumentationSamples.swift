import Foundation
import Net
import Testing

/// Docs/Sessions.md and Docs/Testing.md samples not already run by NetTransportTests'
/// DocumentationExamplesTests, verbatim (``DocumentationCoverageTests`` checks). Sessions.md's
/// `AppURLSession` sample is the first sample of the migration page, compiled and run in
/// MigrationDocumentationTests.swift.
@Suite("Docs/Sessions.md and Docs/Testing.md samples")
struct SessionsDocumentationSamples {
    struct NewFilm: Codable { let title: String }

    /// Compiled only: a client for a real service, and a download from example.com.
    func clientAndProgress(fetchToken: @escaping @Sendable () async throws -> String, destination: URL) async throws {
        let authentication = AuthenticationInterceptor<String>(
            credential: nil,
            header: { token in .header(key: "Authorization", value: "Bearer \(token)") },
            refresh: { _ in try await fetchToken() })

        let client = NetworkClient(
            transport: URLSessionTransport(),
            interceptors: [authentication, RetryPolicy(), LoggingInterceptor { print($0) }],
            maximumConcurrentRequests: 8)

        let (events, progress) = AsyncStream.makeStream(of: NetworkProgress.self)
        async let download = client.requestDownload(for: "https://example.com/big.iso", to: destination, progress: progress)
        for await event in events where event.direction == .download {
            print(event.fractionCompleted ?? 0)
        }
        let file = try await download
        _ = file
    }

    @Test("Asserting on what the stub received")
    func recordedRequests() async throws {
        let stub = StubTransport()
        stub.on(.post, "/films") { request in request.headers["Authorization"] == "Bearer fresh" ? .status(.created) : .status(.unauthorized) }
        let auth = AuthenticationInterceptor<String>(
            credential: "stale", header: { .header(key: "Authorization", value: "Bearer \($0)") }, refresh: { _ in "fresh" })
        let client = NetworkClient(transport: stub, interceptors: [auth])
        let request = try NetworkRequest(url: "https://api.example.com/films", httpMethod: .post, jsonBody: NewFilm(title: "Ran"))
        #expect(try await client.requestData(for: request).statusCode == .created)

        #expect(stub.requests.map(\.request.httpMethod) == [.post, .post])
        #expect(stub.requests.last?.request.headers["Authorization"] == "Bearer fresh")
        #expect(try JSONDecoder().decode(NewFilm.self, from: stub.requests[0].body).title == "Ran")
    }

    @Test func refreshesOnce() async throws {
        let stub = StubTransport { request in
            request.headers["Authorization"] == "Bearer fresh" ? .text("ok") : .status(.unauthorized)
        }
        let auth = AuthenticationInterceptor<String>(
            credential: "stale",
            header: { .header(key: "Authorization", value: "Bearer \($0)") },
            refresh: { _ in "fresh" })
        let client = NetworkClient(transport: stub, interceptors: [auth])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { _ = try await client.requestData(for: "https://host/") } }
            try await group.waitForAll()
        }
        #expect(await auth.refreshCount() == 1)
    }
}

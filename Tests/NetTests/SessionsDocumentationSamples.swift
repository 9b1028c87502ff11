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

    // Compiled only: the proactive-refresh, cookie and resumable-download samples (their
    // behaviour is checked by ProactiveRefreshTests, CookieJarTests and ResumableDownloadTests
    // against real servers).
    struct Token: Sendable {
        var value: String
        var expiresAt: Date
    }

    func proactiveClient(fetchToken: @escaping @Sendable () async throws -> Token) -> NetworkClient {
        let authentication = AuthenticationInterceptor<Token>(
            credential: nil,
            header: { .header(key: "Authorization", value: "Bearer \($0.value)") },
            requiresRefresh: { token, now in token.expiresAt.timeIntervalSince(now) < 60 },
            refresh: { _ in try await fetchToken() }
        )
        return NetworkClient(interceptors: [authentication])
    }

    func signedInClient(jarFile: URL) throws -> NetworkClient {
        let jar = try CookieJar(contentsOf: jarFile)  // read now if it exists, rewritten on every change
        return NetworkClient(cookieJar: jar)
    }

    func recordFilms(to archive: URL) async throws {
        let recorder = HARRecorder()
        let client = NetworkClient(transport: recorder.recording(URLSessionTransport()))
        _ = try await client.requestData(for: "https://example.com/films")
        try recorder.write(to: archive)
    }

    func replayFilms(from archive: URL) async throws -> Data {
        let client = NetworkClient(transport: try StubTransport(replaying: archive))
        return try await client.requestData(for: "https://example.com/films").data
    }

    @Test("The HAR samples: what recordFilms writes, replayFilms serves (on a stub recorded in place of example.com)")
    func harSamplesRoundTrip() async throws {
        let stub = StubTransport()
        stub.on(.get, "/films", respond: .json(#"[{"title":"Ran"}]"#))
        let recorder = HARRecorder()
        _ = try await NetworkClient(transport: recorder.recording(stub)).requestData(for: "https://example.com/films")
        let archive = FileManager.default.temporaryDirectory.appendingPathComponent("films-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: archive) }
        try recorder.write(to: archive)
        #expect(try await replayFilms(from: archive) == Data(#"[{"title":"Ran"}]"#.utf8))
    }

    func fetchISO(client: NetworkClient, to destination: URL) async throws -> URL {
        for attempt in 1...5 {
            do {
                return try await client.requestResumableDownload(for: "https://example.com/big.iso", to: destination).url
            } catch NetworkError.transport(.connectionLost) where attempt < 5 {
                continue  // the bytes so far wait in big.iso.part
            }
        }
        throw CancellationError()
    }

    @Test("A sharing client sends one request for ten identical calls (on a stub whose answer waits until all ten have joined)")
    func sharing() async throws {
        func loadConfiguration(client: NetworkClient) async throws -> [Data] {
            try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await client.requestData(for: "https://example.com/config.json").data }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }

        let sharing = NetworkClient(sharesIdenticalGETs: true)
        _ = sharing

        let stub = StubTransport()
        let shared = SharedRequestsTransport(stub)
        stub.on(.get, "/config.json") { _ in
            while shared.waitingCalls < 10 { try await Task.sleep(for: .milliseconds(1)) }
            return .text("{}")
        }
        let bodies = try await loadConfiguration(client: NetworkClient(transport: shared))
        #expect(bodies.count == 10 && Set(bodies) == [Data("{}".utf8)])
        #expect(stub.requests.count == 1)
    }

    /// Compiled only: a log followed from example.com.
    func streaming(client: NetworkClient) async throws {
        let stream = try await client.requestStream(for: "https://example.com/log")
        print(stream.statusCode)
        for try await chunk in stream.body {
            FileHandle.standardOutput.write(chunk)
        }
    }

    @Test("requestStream hands over the head, then the body in chunks, through the interceptors")
    func streamsThroughTheChain() async throws {
        let body = Data((0..<200_000).map { UInt8($0 % 251) })
        let stub = StubTransport()
        stub.on(.get, "/log", respond: .status(.serviceUnavailable), .init(.response(status: .ok, headers: [], body: body)))
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(baseDelay: .milliseconds(1))])
        let stream = try await client.requestStream(for: "https://example.com/log")
        #expect(stream.statusCode == 200 && stub.requests.count == 2)
        var chunks: [Data] = []
        for try await chunk in stream.body { chunks.append(chunk) }
        #expect(chunks.count > 1 && chunks.reduce(Data(), +) == body)
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

import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Testing

@Suite("NetworkSession: the retry loop on StubTransport")
struct NetworkSessionLoopTests {
    @Test("the seed's minimal session works with only the transport swapped in")
    func seedSession() async throws {
        actor AppURLSession: NetworkSession {
            let transport: any Transport
            init(transport: any Transport) { self.transport = transport }
        }
        let stub = StubTransport()
        stub.on(.get, "/films/:id", respond: .json(#"{"title":"Ran"}"#))
        let networkSession: any NetworkSession = AppURLSession(transport: stub)
        let result = try await networkSession.requestData(for: "https://api.example.com/films/7")
        struct Film: Decodable, Equatable { var title: String }
        #expect(try result.validate().jsonDecode(Film.self) == Film(title: "Ran"))
        #expect(try await networkSession.requestData(for: "https://api.example.com/other").statusCode == 404)
    }

    @Test("a request taken from a data response is not read whole when it is streamed, downloaded or sent to a file")
    func readWholeMarkIsPerCall() async throws {
        let stub = StubTransport { _ in .text("ok") }
        let client = NetworkClient(transport: stub)
        let data = try await client.requestData(for: "https://api.example.com/items")
        #expect(stub.requests.last?.request.responseBodyUse == .inMemory)
        // The response's request carries the mark of its call; a stream of it must not be
        // shared with identical GETs or read whole (SharedRequestsTransport, TaskBridge).
        let stream = try await client.requestStream(for: data.originalRequest)
        for try await _ in stream.body {}
        #expect(stub.requests.last?.request.responseBodyUse == .streamed)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-mark-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await stub.send(data.originalRequest, to: .file(file))
        #expect(stub.requests.last?.request.responseBodyUse == .toFile)
        _ = try await client.requestDownload(for: data.originalRequest, to: file)
        #expect(stub.requests.last?.request.responseBodyUse == .toFile)
    }

    @Test("every attempt is intercepted exactly once, and a retry goes through interceptRequest again")
    func interceptionCounts() async throws {
        let stub = StubTransport()
        stub.on(.get, "/x", respond: .status(500))
        let session = CountingSession(transport: stub, retries: 2)
        let response = try await session.requestData(for: "https://host/x")
        #expect(response.statusCode == 500)
        #expect(await session.requestInterceptions == 3)
        #expect(await session.responseInterceptions == [0, 1, 2])
        #expect(stub.requests.map { $0.request.headers["X-Attempt"] } == ["1", "2", "3"])
    }

    @Test("retries are capped by maximumRetryCount and the last result is returned")
    func cap() async throws {
        let stub = StubTransport()
        stub.on(.get, "/x", respond: .status(503), .status(502))
        let session = CountingSession(transport: stub, retries: .max, maximumRetryCount: 3)
        let response = try await session.requestData(for: "https://host/x")
        #expect(stub.requests.count == 4)
        #expect(response.statusCode == 502)
        #expect(await session.responseInterceptions == [0, 1, 2, 3])
    }

    @Test("errors are intercepted once each and thrown when not retried")
    func errorsIntercepted() async throws {
        let stub = StubTransport()
        stub.on(nil, "*", respond: .failure(.connectionLost("reset")))
        let session = CountingSession(transport: stub, retries: 1)
        let error = await #expect(throws: NetworkError.self) { _ = try await session.requestData(for: "https://host/x") }
        #expect(error.flatMap(TransportTest.transportFailure) == .connectionLost("reset"))
        #expect(await session.responseInterceptions == [0, 1])
    }

    @Test("a cancelled task sends nothing")
    func cancelledBeforeStart() async throws {
        let stub = StubTransport()
        let session = CountingSession(transport: stub, retries: 0)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await session.requestData(for: "https://host/x")
        }
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(stub.requests.isEmpty)
        #expect(await session.requestInterceptions == 0)
    }

    @Test("cancellation interrupts a backoff wait at once")
    func cancelDuringBackoff() async throws {
        let stub = StubTransport()
        stub.on(.get, "/x", respond: .status(503))
        // On a manual clock the 30 s backoff never ends by itself: the call can only end as
        // cancelled if the cancellation interrupted the wait.
        let clock = ManualClock()
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(baseDelay: .seconds(30), jitter: 0)], clock: clock)
        let task = Task { try await client.requestData(for: "https://host/x") }
        // The backoff's start is the signal (not a guess at how long the first attempt takes).
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { clock.pendingDelays.first == .seconds(30) },
                     "waits \(clock.pendingDelays), not the 30 s backoff first")
        #expect(stub.requests.count == 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(stub.requests.count == 1)
    }

    @Test("cancellation during a stubbed delay ends the call as cancelled", .timeLimit(.minutes(3)))
    func cancelDuringDelay() async throws {
        // An hour's delay and deadline: a cancellation that does not reach the delay hangs into
        // the time limit instead of ending some other way.
        let stub = StubTransport()
        stub.on(nil, "*", respond: StubResponse.status(.ok).delayed(by: .seconds(3600)))
        let client = NetworkClient(transport: stub, timeout: .seconds(3600))
        let task = Task { try await client.requestData(for: "https://host/x") }
        // Cancelled once the stub has the request, so the cancellation meets its delay.
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { stub.requests.count == 1 })
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test("uploads send the given body and say what was sent")
    func uploads() async throws {
        let stub = StubTransport()
        stub.on(.post, "/up", respond: .text("stored"))
        let client = NetworkClient(transport: stub)
        let payload = Data("hello".utf8)
        let fromData = try await client.requestUpload(for: "https://host/up", from: payload)
        #expect(String(decoding: fromData.data, as: UTF8.self) == "stored")
        guard case .data(payload) = fromData.uploadType else { Issue.record("uploadType \(fromData.uploadType)"); return }

        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("f.txt")
        try payload.write(to: file)
        let fromFile = try await client.requestUpload(for: "https://host/up", fromFile: file)
        guard case .file(file) = fromFile.uploadType else { Issue.record("uploadType \(fromFile.uploadType)"); return }

        let streamed = try NetworkRequest(url: "https://host/up", httpMethod: .post, body: .stream(NetworkBodyStream(chunks: [payload, payload])))
        let fromStream = try await client.requestUpload(for: streamed)
        guard case .stream(length: 10) = fromStream.uploadType else { Issue.record("uploadType \(fromStream.uploadType)"); return }
        #expect(stub.requests.map(\.body) == [payload, payload, payload + payload])
    }

    @Test("progress arrives on an AsyncStream created before the call, from the first event, and the stream ends")
    func progress() async throws {
        let stub = StubTransport()
        stub.on(.post, "/up", respond: .status(.ok, body: Data(count: 200_000)))
        let client = NetworkClient(transport: stub)
        let (events, reporter) = AsyncStream.makeStream(of: NetworkProgress.self)
        _ = try await client.requestUpload(for: "https://host/up", from: Data(count: 1_000), progress: reporter)
        var received: [NetworkProgress] = []
        for await event in events { received.append(event) }
        #expect(received.first == NetworkProgress(direction: .upload, completedBytes: 1_000, expectedBytes: 1_000))
        #expect(received.last == NetworkProgress(direction: .download, completedBytes: 200_000, expectedBytes: 200_000))
        #expect(received.filter { $0.direction == .download }.count == 4)
    }

    @Test("an upload to a bare URL or URL string is a POST either way; a NetworkRequest keeps its method")
    func uploadMethods() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = NetworkClient(transport: stub)
        let body = Data("payload".utf8)
        _ = try await client.requestUpload(for: "https://example.com/a", from: body)
        _ = try await client.requestUpload(for: try #require(URL(string: "https://example.com/b")), from: body)
        _ = try await client.requestUpload(for: try NetworkRequest(url: "https://example.com/c", httpMethod: .put), from: body)
        #expect(stub.requests.map(\.request.httpMethod) == [.post, .post, .put])
        #expect(stub.requests.allSatisfy { $0.body == body })
    }

    @Test("an upload's body and a bare address's POST survive a request an interceptor builds anew, as ALTENNetwork's did")
    func uploadSurvivesRebuiltRequests() async throws {
        /// Signs each attempt with a request built from its URL alone (the seed's
        /// "return a new request with other authentication headers"), and answers a 401 with
        /// `.retry` of a bare URL.
        actor RebuildingSession: NetworkSession {
            let transport: any Transport
            init(transport: any Transport) { self.transport = transport }
            func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible {
                try NetworkRequest(url: originalRequest.url, httpMethod: originalRequest.httpMethod,
                                   headers: [.header(key: "Authorization", value: "Bearer t")])
            }
            func interceptResponse(networkSession: any NetworkSession, originalRequest: NetworkRequest, retryNumber: Int,
                                   result: Result<NetworkSessionInterception, any Error>) async throws -> NetworkSessionInterceptionResult {
                if case .success(let interception) = result, interception.statusCode == 401 { return .retry(originalRequest.url) }
                return .nothing
            }
        }
        let stub = StubTransport()
        stub.on(nil, "/upload", respond: .status(401), .status(201))
        let session = RebuildingSession(transport: stub)
        let body = Data("payload".utf8)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-upload-\(UUID().uuidString)")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let withOwnBody = try NetworkRequest(url: "https://api.test/upload", httpMethod: .put, body: .data(body))
        for upload in [{ try await session.requestUpload(for: "https://api.test/upload", from: body) },
                       { try await session.requestUpload(for: "https://api.test/upload", fromFile: file) },
                       { try await session.requestUpload(for: withOwnBody) }] as [@Sendable () async throws -> NetworkUploadResponse] {
            stub.reset()
            stub.on(nil, "/upload", respond: .status(401), .status(201))
            #expect(try await upload().statusCode == 201)
            #expect(stub.requests.count == 2)
            #expect(stub.requests.allSatisfy { $0.body == body }, "every attempt sends the call's body")
            #expect(stub.requests.allSatisfy { $0.request.headers["Authorization"] == "Bearer t" })
        }
        // The bare address was a POST on its retry too; the request's own method is kept.
        #expect(stub.requests.map(\.request.httpMethod) == [.put, .post])
    }

    @Test("a body an interceptor puts on an upload's request is the one sent")
    func interceptorBodyKept() async throws {
        /// Replaces each attempt's body, as an interceptor that compresses uploads would.
        actor CompressingSession: NetworkSession {
            let transport: any Transport
            init(transport: any Transport) { self.transport = transport }
            func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible {
                var compressed = originalRequest
                compressed.body = .data(Data("compressed".utf8))
                return compressed
            }
        }
        let stub = StubTransport(fallback: .status(.created))
        _ = try await CompressingSession(transport: stub).requestUpload(for: "https://api.test/upload", from: Data("payload".utf8))
        #expect(stub.requests.map(\.body) == [Data("compressed".utf8)])
    }

    @Test("a GET an upload's interceptor retries with goes without the upload's body")
    func uploadRetriedAsGet() async throws {
        /// Follows the upload with a GET of its status, as a `.retry`.
        actor StatusSession: NetworkSession {
            let transport: any Transport
            init(transport: any Transport) { self.transport = transport }
            func interceptResponse(networkSession: any NetworkSession, originalRequest: NetworkRequest, retryNumber: Int,
                                   result: Result<NetworkSessionInterception, any Error>) async throws -> NetworkSessionInterceptionResult {
                retryNumber == 0 ? .retry(try NetworkRequest(url: "https://api.test/upload/status")) : .nothing
            }
        }
        let stub = StubTransport(fallback: .status(.ok))
        _ = try await StatusSession(transport: stub).requestUpload(for: "https://api.test/upload", from: Data("payload".utf8))
        #expect(stub.requests.map(\.request.httpMethod) == [.post, .get])
        #expect(stub.requests.map(\.body) == [Data("payload".utf8), Data()])
    }
}

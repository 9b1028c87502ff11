import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetTestSupport
@testable import NetTransport
import Testing

@Suite("NetworkClient: concurrency limit, logging, downloads")
struct ClientFeaturesTests {
    @Test("no more than maximumConcurrentRequests are on the transport at once")
    func concurrencyLimit() async throws {
        // Judged by what is where, not by how long a call stays: every call waits on the transport
        // until the test opens the gate, and the gate opens only once all 40 are accounted for, 4
        // on the transport and 36 in the limit's line. A fifth let through would be seen there.
        let inFlight = Counter()
        let gate = AsyncSignal()
        let stub = StubTransport { _ in
            await inFlight.enter()
            await gate.wait()
            await inFlight.leave()
            return .status(.ok)
        }
        let client = NetworkClient(transport: stub, maximumConcurrentRequests: 4)
        let limited = try #require(client.transport as? ConcurrencyLimitedTransport)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 { group.addTask { _ = try await client.requestData(for: "https://host/x") } }
            let accountedFor = await eventually(within: TestTiming.scaled(.seconds(20))) {
                await inFlight.current == 4 && limited.waitingCount == 36
            }
            let onTransport = await inFlight.current
            #expect(accountedFor, "\(onTransport) on the transport, \(limited.waitingCount) waiting")
            gate.fire()
            try await group.waitForAll()
        }
        #expect(await inFlight.peak == 4)
        #expect(stub.requests.count == 40)
    }

    @Test("a request waiting for a slot leaves the queue when cancelled")
    func cancelWhileQueued() async throws {
        // Judged by order, not by time (a timing bound failed under a loaded CI run): the first
        // request holds the only slot (until it is cancelled, or 20 s), and the queued one, once
        // in the line, must end as cancelled while the first still holds it. One that stayed in
        // the line would end only after the first let go.
        let firstArrived = LockedBox(false)
        let firstLetGo = LockedBox(false)
        let stub = StubTransport { request in
            guard request.url.path == "/hold" else { return .status(.ok) }
            firstArrived.mutate { $0 = true }
            try? await Task.sleep(for: TestTiming.scaled(.seconds(20)))
            firstLetGo.mutate { $0 = true }
            return .status(.ok)
        }
        let limited = ConcurrencyLimitedTransport(stub, maximumConcurrentRequests: 1)
        let first = Task { try await limited.send(try NetworkRequest(url: "https://host/hold", timeout: .seconds(3600))) }
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { firstArrived.read() })
        let queued = Task { try await limited.send(try NetworkRequest(url: "https://host/x", timeout: .seconds(3600))) }
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { limited.waitingCount == 1 })
        queued.cancel()
        await #expect(throws: CancellationError.self) { _ = try await queued.value }
        #expect(!firstLetGo.read(), "the queued request ended only once the first had let go of the slot")
        #expect(limited.waitingCount == 0)
        #expect(stub.requests.count == 1)  // only the first reached the transport
        // Cancelling the first frees the slot for the next request.
        first.cancel()
        _ = try? await first.value
        #expect(try await limited.send(NetworkRequest(url: "https://host/fast")).head.statusCode == 200)
    }

    @Test("a waiter cancelled as its permit is granted leaves nothing behind", .timeLimit(.minutes(3)))
    func cancelAsGranted() async throws {
        let permits = Permits(count: 1)
        for _ in 0..<100 {
            try await permits.acquire()
            let waiter = Task { try await permits.acquire() }
            try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { permits.waitingCount == 1 })
            // Granted, then cancelled before its task has run again: the cancel finds no one in line.
            permits.release()
            waiter.cancel()
            try await waiter.value  // granted all the same
            permits.release()
        }
        #expect(permits.joiningCount == 0)
        #expect(permits.waitingCount == 0)
    }

    @Test("the logging interceptor prints the redacted curl and a summary per attempt")
    func logging() async throws {
        let lines = Collected<String>()
        let stub = StubTransport()
        stub.on(.get, "/x", respond: .status(503), .text("hello"))
        let client = NetworkClient(transport: stub, interceptors: [
            RetryPolicy(baseDelay: .milliseconds(1), jitter: 0), LoggingInterceptor { lines.append($0) },
        ])
        let request = try NetworkRequest(url: "https://host/x", headers: [.header(key: "Authorization", value: "Bearer secret")])
        _ = try await client.requestData(for: request)
        let log = lines.values
        try #require(log.count == 4, "\(log)")  // not read past its end below when it fails
        #expect(log[0].hasPrefix("[Net] → curl"))
        #expect(!log.joined().contains("secret"))
        #expect(log[1] == "[Net] ← 503 Service Unavailable GET https://host/x: 0 bytes")
        #expect(log[3] == "[Net] ← 200 OK GET https://host/x (retry 1): 5 bytes")
    }

    @Test("a download lands at its destination only when final and successful; retried and failed attempts and error pages leave it as it was")
    func atomicDownload() async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.csv")
        try Data("previous".utf8).write(to: destination)

        let stub = StubTransport()
        stub.on(.get, "/report", respond: .text("busy", status: 503), .text("a,b\n1,2\n"))
        stub.on(.get, "/broken", respond: .failure(.connectionLost("reset")))
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(baseDelay: .milliseconds(1), jitter: 0)])

        await #expect(throws: NetworkError.self) { _ = try await client.requestDownload(for: "https://host/broken", to: destination) }
        #expect(try String(contentsOf: destination, encoding: .utf8) == "previous")
        #expect(try TransportTest.contents(of: directory) == ["report.csv"])

        let response = try await client.requestDownload(for: "https://host/report", to: destination)
        #expect(response.url == destination)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "a,b\n1,2\n")
        #expect(try TransportTest.contents(of: directory) == ["report.csv"])

        let unnamed = try await client.requestDownload(for: "https://host/report")
        defer { try? FileManager.default.removeItem(at: unnamed.url) }
        #expect(try unnamed.bodyData() == Data("a,b\n1,2\n".utf8))

        // A final answer that is not a success (a 404; a 503 past the last retry) leaves the file
        // as it was: its body is in a temporary file of its own, named by the response.
        stub.on(.get, "/gone", respond: .text("no such report", status: 404))
        stub.on(.get, "/down", respond: .text("down", status: 503))
        for (path, body) in [("/gone", "no such report"), ("/down", "down")] {
            let failed = try await client.requestDownload(for: "https://host\(path)", to: destination)
            defer { try? FileManager.default.removeItem(at: failed.url) }
            #expect(!failed.response.statusCode.isSuccess)
            #expect(failed.url != destination && failed.url.path.hasPrefix(FileManager.default.temporaryDirectory.path))
            #expect(try failed.bodyData() == Data(body.utf8))
            #expect(try String(contentsOf: destination, encoding: .utf8) == "a,b\n1,2\n")
            #expect(try TransportTest.contents(of: directory) == ["report.csv"])
        }
        // A success without a body by definition (204, 205, an answer to HEAD) leaves it too:
        // its nothing would otherwise empty the file.
        stub.on(.get, "/emptied", respond: .status(204))
        stub.on(.get, "/reset", respond: .status(205))
        stub.on(.head, "/report", respond: .status(.ok))
        let bodiless: [NetworkRequest] = [try NetworkRequest(url: "https://host/emptied"), try NetworkRequest(url: "https://host/reset"),
                                          try NetworkRequest(url: "https://host/report", httpMethod: .head)]
        for request in bodiless {
            let answered = try await client.requestDownload(for: request, to: destination)
            defer { try? FileManager.default.removeItem(at: answered.url) }
            #expect(answered.response.statusCode.isSuccess)
            #expect(answered.url != destination, "\(request)")
            #expect(try String(contentsOf: destination, encoding: .utf8) == "a,b\n1,2\n", "\(request)")
            #expect(try TransportTest.contents(of: directory) == ["report.csv"])
        }
    }

    @Test("a download whose error model validate throws loses its temporary file; a destination of the caller's stays")
    func errorModelDownloads() async throws {
        struct APIError: Error, Decodable, Equatable { let code: String }
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.json")
        let stub = StubTransport()
        stub.on(.get, "/missing", respond: .json(#"{"code":"E404"}"#, status: 404))
        stub.on(.get, "/accepted", respond: .json(#"{"code":"E202"}"#, status: 202))
        let client = NetworkClient(transport: stub)
        // The 404's body went to a temporary file the response names; the model thrown names none.
        let missing = try await client.requestDownload(for: "https://host/missing", to: destination)
        #expect(missing.url != destination && FileManager.default.fileExists(atPath: missing.url.path))
        #expect(throws: APIError(code: "E404")) { try missing.validate(errorModel: APIError.self) }
        #expect(!FileManager.default.fileExists(atPath: missing.url.path))
        // A 2xx outside a narrower range: the body is at the caller's destination, which stays.
        let accepted = try await client.requestDownload(for: "https://host/accepted", to: destination)
        #expect(accepted.url == destination)
        #expect(throws: APIError(code: "E202")) { try accepted.validate(correctRange: [200], errorModel: APIError.self) }
        #expect(FileManager.default.fileExists(atPath: destination.path))
    }

    @Test("the stub validates requests and reports bad fixtures as typed errors")
    func stubErrors() async throws {
        let missing = URL(fileURLWithPath: "/nonexistent/fixture.json")
        #expect {
            _ = try StubResponse.fixture(missing)
        } throws: { error in
            guard case .request(.unreadableBodyFile(let path, _)) = error as? NetworkError else { return false }
            return path == missing.path
        }
        let stub = StubTransport()
        stub.on(nil, "*", respond: .status(.ok, headers: [.header(key: "Bad Name", value: "x")]))
        await #expect(throws: NetworkError.self) { _ = try await stub.send(try NetworkRequest(url: "https://host/")) }
        let slow = StubTransport()
        slow.on(nil, "*", respond: StubResponse.status(.ok).delayed(by: .seconds(5)))
        let error = await #expect(throws: NetworkError.self) {
            _ = try await slow.send(try NetworkRequest(url: "https://host/", timeout: .milliseconds(50)))
        }
        guard case .timedOut = error.flatMap(TransportTest.transportFailure) else { Issue.record("\(String(describing: error))"); return }
    }

    @Test("stub routes: literal, :parameter and * segments; methods; sequences repeat their last answer")
    func routes() async throws {
        let stub = StubTransport()
        stub.on(.get, "/users/:id", respond: .text("user"))
        stub.on(.delete, "/users/:id", respond: .status(.noContent))
        stub.on(nil, "/files/*", respond: .text("file"))
        stub.on(.get, "/seq", respond: .text("1"), .text("2"))
        func body(_ method: NetworkHttpMethod, _ path: String) async throws -> String {
            let response = try await stub.send(try NetworkRequest(url: "https://host" + path, httpMethod: method))
            return "\(response.head.statusCode.rawValue) \(String(decoding: response.body, as: UTF8.self))"
        }
        #expect(try await body(.get, "/users/7") == "200 user")
        #expect(try await body(.delete, "/users/7") == "204 ")
        #expect(try await body(.get, "/users/7/extra") == "404 ")
        #expect(try await body(.put, "/files/a/b/c") == "200 file")
        #expect(try await body(.get, "/files") == "200 file")
        #expect(try await body(.get, "/seq") == "200 1")
        #expect(try await body(.get, "/seq") == "200 2")
        #expect(try await body(.get, "/seq") == "200 2")
    }
}

@Suite("URLRequest as a NetworkRequestConvertible")
struct URLRequestConversionTests {
    @Test("URL, method, headers, body and timeout carry over; a body stream is refused")
    func conversion() throws {
        var urlRequest = URLRequest(url: try #require(URL(string: "https://host/path?q=1")))
        urlRequest.httpMethod = "PATCH"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.httpBody = Data("{}".utf8)
        urlRequest.timeoutInterval = 2.5
        let request = try urlRequest.asNetworkRequest()
        #expect(request.url.absoluteString == "https://host/path?q=1")
        #expect(request.httpMethod == .patch)
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.httpBody == Data("{}".utf8))
        #expect(request.timeout == .milliseconds(2_500))

        urlRequest.httpBodyStream = InputStream(data: Data("x".utf8))
        #expect(throws: NetworkError.self) { _ = try urlRequest.asNetworkRequest() }
    }
}

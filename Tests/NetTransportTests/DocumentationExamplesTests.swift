import Foundation
import NetCore
import NetTransport
import Testing

// The examples of Docs/Sessions.md and Docs/Testing.md, compiled here as written (only the
// transport passed in, so the tests run them against a StubTransport).

actor AppURLSession: NetworkSession {
    let transport: any Transport

    init(transport: any Transport) {
        self.transport = transport
    }
}

struct FilmsSearchDTO: Codable, Equatable {
    var search: [String]
}

actor SigningSession: NetworkSession {
    let transport: any Transport
    init(transport: any Transport) { self.transport = transport }

    func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible {
        var request = originalRequest
        try request.headers.set(name: "Authorization", value: "Token")
        return request
    }

    func interceptResponse(
        networkSession: any NetworkSession, originalRequest: NetworkRequest, retryNumber: Int,
        result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult {
        guard retryNumber < 1, case .success(let response) = result, response.statusCode == 503 else { return .nothing }
        return .retryAfter(.milliseconds(200), originalRequest)
    }
}

@Suite("Docs/Sessions.md and Docs/Testing.md examples")
struct DocumentationExamplesTests {
    @Test("the seed session: doRequest and getFilms")
    func seed() async throws {
        let stub = StubTransport()
        let films = try StubResponse.json(encoding: FilmsSearchDTO(search: ["Ran"]))
        stub.on(.get, "/") { request in request.url.host == "alten.es" ? .text("hola") : films }
        let networkSession: any NetworkSession = AppURLSession(transport: stub)

        func doRequest() async throws -> Data {
            let url = "https://alten.es"
            let result = try await networkSession.requestData(for: url)
            return result.data
        }

        func getFilms(searchText: String, page: Int) async throws -> FilmsSearchDTO {
            let networkRequest = try NetworkRequest(url: "https://www.omdbapi.com/", query: [
                .query(key: "apikey", value: "xxxxxxxx"),
                .query(key: "page", value: "\(page)"),
                .query(key: "s", value: searchText),
            ])
            return try await networkSession.requestData(for: networkRequest).validate().jsonDecode(FilmsSearchDTO.self)
        }

        #expect(try await doRequest() == Data("hola".utf8))
        #expect(try await getFilms(searchText: "kurosawa", page: 1) == FilmsSearchDTO(search: ["Ran"]))
        #expect(stub.requests.last?.request.url.absoluteString == "https://www.omdbapi.com/?apikey=xxxxxxxx&page=1&s=kurosawa")
    }

    @Test("intercepting: the header is added and a 503 retried once after 200 ms")
    func intercepting() async throws {
        let stub = StubTransport()
        let arrivals = Collected<ContinuousClock.Instant>()
        stub.on(.get, "/x") { _ in
            arrivals.append(.now)
            return arrivals.values.count == 1 ? .status(503) : .text("ok")
        }
        let session = SigningSession(transport: stub)
        #expect(try await session.requestData(for: "https://host/x").statusCode == 200)
        #expect(stub.requests.map { $0.request.headers["Authorization"] } == ["Token", "Token"])
        // The sample waits on the real clock, which never wakes a sleep early.
        let times = arrivals.values
        #expect(times.count == 2 && times[1] - times[0] >= .milliseconds(200), "\(times)")
    }

    @Test("NetworkClient with authentication, retry, logging and a limit")
    func client() async throws {
        let stub = StubTransport { request in
            request.headers["Authorization"] == "Bearer t1" ? .text("ok") : .status(.unauthorized)
        }
        let tokens = Counter()
        @Sendable func fetchToken() async throws -> String { "t\(await tokens.increment())" }

        let authentication = AuthenticationInterceptor<String>(
            credential: nil,
            header: { token in .header(key: "Authorization", value: "Bearer \(token)") },
            refresh: { _ in try await fetchToken() })

        let lines = Collected<String>()
        let client = NetworkClient(
            transport: stub,
            interceptors: [authentication, RetryPolicy(), LoggingInterceptor { lines.append($0) }],
            maximumConcurrentRequests: 8)
        #expect(try await client.requestData(for: "https://host/").statusCode == 200)
        #expect(lines.values.count == 2)
    }

    @Test("progress on an AsyncStream while a download runs")
    func progress() async throws {
        let stub = StubTransport()
        stub.on(.get, "/big.iso", respond: .status(.ok, body: Data(count: 300_000)))
        let client = NetworkClient(transport: stub)
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("big.iso")

        let (events, progress) = AsyncStream.makeStream(of: NetworkProgress.self)
        async let download = client.requestDownload(for: "https://example.com/big.iso", to: destination, progress: progress)
        var fractions: [Double] = []
        for await event in events where event.direction == .download {
            fractions.append(event.fractionCompleted ?? 0)
        }
        let file = try await download
        #expect(fractions.last == 1)
        #expect(file.url == destination)
    }

    @Test("Testing.md: a stub with every kind of answer")
    func stubSetup() async throws {
        struct Film: Decodable, Equatable { var title: String }
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixtureURL = directory.appendingPathComponent("logo.png")
        try Data([0x89, 0x50, 0x4e, 0x47]).write(to: fixtureURL)

        let stub = StubTransport()                        // unmatched requests get a 404
        stub.on(.get, "/films/:id", respond: .json(#"{"title":"Ran"}"#))
        stub.on(.post, "/films", respond: .status(503), .status(201))   // in turn; the last repeats
        stub.on(nil, "/files/*", respond: try .fixture(fixtureURL, contentType: "image/png"))
        stub.on(.get, "/slow", respond: StubResponse.text("late").delayed(by: .seconds(2)))
        stub.on(.get, "/down", respond: .failure(.cannotConnect("connection refused")))
        stub.on(.get, "/echo") { request in .text(request.headers["X-Name"] ?? "?") }

        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy()])
        let film = try await client.requestData(for: "https://api.example.com/films/7").jsonDecode(Film.self)
        #expect(film == Film(title: "Ran"))
        #expect(try await client.requestData(for: "https://api.example.com/files/a/logo.png").data.count == 4)
        let echo = try NetworkRequest(url: "https://api.example.com/echo", headers: [.header(key: "X-Name", value: "Ada")])
        #expect(try await client.requestData(for: echo).data == Data("Ada".utf8))
        let slow = try NetworkRequest(url: "https://api.example.com/slow", timeout: .milliseconds(100))
        await #expect(throws: NetworkError.self) { _ = try await stub.send(slow) }
    }
}

import Foundation
import NetCore
import NetTransport
import Testing

@Suite("NetworkSession over URLSessionTransport against the loopback server")
struct SessionOverURLSessionTests {
    actor AppURLSession: NetworkSession {
        let transport: any Transport
        init(transport: any Transport) { self.transport = transport }

        func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async -> any NetworkRequestConvertible {
            var request = originalRequest
            try? request.headers.set(name: "Authorization", value: "Token")
            return request
        }
    }

    @Test("the seed README's flow: query request, interceptor header, validate and decode")
    func seedFlow() async throws {
        let networkSession: any NetworkSession = AppURLSession(transport: TransportTest.transport)
        let networkRequest = try NetworkRequest(url: try await TransportTest.url("/echo"), query: [
            .query(key: "apikey", value: "xxxxxxxx"), .query(key: "page", value: "2"), .query(key: "s", value: "star wars"),
        ])
        let echo = try await networkSession.requestData(for: networkRequest).validate().jsonDecode(EchoReply.self)
        #expect(echo.uri == "/echo?apikey=xxxxxxxx&page=2&s=star%20wars")
        #expect(echo.values("Authorization") == ["Token"])
    }

    @Test("a download through the session lands atomically; a truncated body is an error and leaves nothing")
    func downloads() async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("data.bin")
        let client = NetworkClient(transport: TransportTest.transport)
        let response = try await client.requestDownload(for: try await TransportTest.request("/bytes/300000"), to: destination)
        #expect(response.url == destination)
        #expect(try Data(contentsOf: destination) == LoopbackServer.pattern(count: 300_000))

        let truncated = directory.appendingPathComponent("truncated.bin")
        await #expect(throws: NetworkError.self) {
            _ = try await client.requestDownload(for: try await TransportTest.request("/truncated"), to: truncated)
        }
        #expect(try TransportTest.contents(of: directory) == ["data.bin"])
    }

    @Test("a real 401 triggers one refresh and the retry carries the new credential")
    func authAgainstServer() async throws {
        let refreshes = Counter()
        let auth = AuthenticationInterceptor<String>(credential: "stale", header: { .header(key: "X-Key", value: $0) }) { _ in
            await refreshes.increment()
            return "fresh"
        }
        // The server answers 401 only while the key is stale: /status/401 vs /echo chosen by a
        // tiny interceptor standing in for server-side logic.
        struct Route: NetworkInterceptor {
            let base: URL
            func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
                var routed = request
                let path = request.headers["X-Key"] == "fresh" ? "/echo" : "/status/401"
                routed.url = try #require(URL(string: base.absoluteString + path))
                return routed
            }
        }
        let client = NetworkClient(transport: TransportTest.transport,
                                   interceptors: [auth, Route(base: try await LoopbackServer.shared.baseURL())])
        let echo = try await client.requestData(for: try await TransportTest.request("/start")).validate().jsonDecode(EchoReply.self)
        #expect(echo.values("X-Key") == ["fresh"])
        #expect(await refreshes.value == 1)
    }
}

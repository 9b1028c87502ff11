import Foundation
import NetCore
import NetTransport
import Testing

@Suite("URLSessionTransport: redirects")
struct URLSessionTransportRedirectTests {
    let transport = TransportTest.transport
    let payload = Data("the body must survive".utf8)

    @Test("301, 302 and 303 turn a POST into a GET without its body", arguments: [301, 302, 303])
    func postBecomesGet(code: Int) async throws {
        let request = try await TransportTest.request("/redirect/\(code)?to=/echo", method: .post, body: .data(payload))
        let response = try await transport.send(request)
        let echo = try TransportTest.echo(response)
        #expect(echo.method == "GET")
        #expect(echo.bodyLength == 0)
        #expect(echo.values("Content-Type").isEmpty)
        #expect(response.head.url.path == "/echo")
    }

    @Test("307 and 308 resend the method and the whole body (memory, file, stream)", arguments: [307, 308])
    func bodyIsResent(code: Int) async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body.txt")
        try payload.write(to: file)
        for body in [NetworkRequestBody.data(payload), .file(file), .stream(NetworkBodyStream(chunks: [payload]))] {
            for method in [NetworkHttpMethod.post, .put] {
                let request = try await TransportTest.request("/redirect/\(code)?to=/echo", method: method, body: body)
                let echo = try TransportTest.echo(try await transport.send(request))
                #expect(echo.method == method.rawValue)
                #expect(echo.bodyLength == payload.count)
                #expect(echo.bodyChecksum == LoopbackServer.checksum(payload))
            }
        }
    }

    @Test("a chain longer than the limit ends with tooManyRedirects; one at the limit is followed")
    func limit() async throws {
        let limited = URLSessionTransport()
        let atLimit = try TransportTest.echo(try await limited.send(try await TransportTest.request(Self.chain(3)), redirectPolicy: .follow(limit: 3)))
        #expect(atLimit.method == "GET")

        let lastURL = try await TransportTest.url(Self.chain(1)).absoluteString
        let error = await #expect(throws: NetworkError.self) {
            _ = try await limited.send(try await TransportTest.request(Self.chain(5)), redirectPolicy: .follow(limit: 3))
        }
        #expect(error.flatMap(TransportTest.transportFailure) == .tooManyRedirects(limit: 3, lastURL: lastURL))
    }

    /// A path that redirects `hops` times before reaching `/echo`.
    static func chain(_ hops: Int) -> String {
        guard hops > 0 else { return "/echo" }
        let next = chain(hops - 1).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/redirect/302?to=" + next
    }

    @Test("doNotFollow returns the 3xx with its Location")
    func notFollowed() async throws {
        let manual = URLSessionTransport()
        let response = try await manual.send(try await TransportTest.request("/redirect/307?to=/echo", method: .post, body: .data(payload)), redirectPolicy: .doNotFollow)
        #expect(response.head.statusCode == 307)
        #expect(response.head.headers["Location"] == "/echo")
    }

    @Test("credentials are kept on the same origin and dropped on another")
    func credentialsAcrossOrigins() async throws {
        let sameOrigin = try await TransportTest.request("/redirect/307?to=/echo", headers: [.header(key: "Authorization", value: "Bearer secret")])
        #expect(try TransportTest.echo(try await transport.send(sameOrigin)).values("Authorization") == ["Bearer secret"])

        let base = try await LoopbackServer.shared.baseURL()
        let otherOrigin = "http://localhost:\(base.port ?? 0)/echo"
        let query = try #require(otherOrigin.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let crossOrigin = try await TransportTest.request("/redirect/307?to=\(query)", headers: [
            .header(key: "Authorization", value: "Bearer secret"), .header(key: "X-Other", value: "kept"),
        ])
        let echo = try TransportTest.echo(try await transport.send(crossOrigin))
        #expect(echo.values("Authorization").isEmpty)
        #expect(echo.values("X-Other") == ["kept"])
    }
}

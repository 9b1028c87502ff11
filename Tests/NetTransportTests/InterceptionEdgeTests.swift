import Foundation
import NetCore
import NetTransport
import Testing

/// What Docs/Sessions.md and Docs/Streaming.md say of the edges: the request `interceptResponse`
/// sees with an error, an `interceptRequest` that throws, a body already whole read twice, and an
/// event source's `Accept`.
@Suite("Interception and bodies at their edges")
struct InterceptionEdgeTests {
    struct Refused: Error {}

    /// Signs every request with `X-Signed`, or refuses it, and notes what `interceptResponse` saw.
    actor RecordingSession: NetworkSession {
        let transport: any Transport
        var refuses = false
        /// Each `interceptResponse`: the `X-Signed` field of the request it got, and whether the
        /// attempt failed.
        var seen: [(signed: String?, failed: Bool)] = []

        init(transport: any Transport) { self.transport = transport }

        func refuseFromNowOn() { refuses = true }

        func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible {
            if refuses { throw Refused() }
            var request = originalRequest
            try request.headers.set(name: "X-Signed", value: "yes")
            return request
        }

        func interceptResponse(
            networkSession: any NetworkSession, originalRequest: NetworkRequest, retryNumber: Int,
            result: Result<NetworkSessionInterception, any Error>
        ) async throws -> NetworkSessionInterceptionResult {
            let failed = if case .failure = result { true } else { false }
            seen.append((originalRequest.headers["X-Signed"], failed))
            return .nothing
        }
    }

    @Test("interceptResponse gets the signed request with a response, the request as the attempt began with an error; an interceptRequest error skips it")
    func requestSeenByInterceptResponse() async throws {
        let stub = StubTransport()
        stub.on(.get, "/ok", respond: .text("ok"))
        stub.on(.get, "/lost", respond: .failure(.connectionLost("cut")))
        let session = RecordingSession(transport: stub)
        _ = try await session.requestData(for: "https://example.com/ok")
        await #expect(throws: NetworkError.self) { _ = try await session.requestData(for: "https://example.com/lost") }
        var seen = await session.seen
        #expect(seen.map(\.signed) == ["yes", nil] && seen.map(\.failed) == [false, true])
        #expect(stub.requests.allSatisfy { $0.request.headers["X-Signed"] == "yes" }, "the failed one was sent signed")

        await session.refuseFromNowOn()
        await #expect(throws: Refused.self) { _ = try await session.requestData(for: "https://example.com/ok") }
        seen = await session.seen
        #expect(seen.count == 2, "interceptResponse ran for the refused attempt")
        #expect(stub.requests.count == 2)
    }

    @Test("a body already whole in memory (a stub's, a cache hit's) can be read twice")
    func wholeBodyReadTwice() async throws {
        let stub = StubTransport(fallback: .text("hello", headers: [.header(key: "Cache-Control", value: "max-age=60")]))
        let plain = try await NetworkClient(transport: stub).requestStream(for: "https://example.com/greeting")
        #expect(try await plain.body.collect() == Data("hello".utf8))
        #expect(try await plain.body.collect() == Data("hello".utf8), "the stub's body read again")
        // Through a cache: the answer that fills it arrives in chunks (the cache reads along), so
        // it has one reader; the hit after it is whole.
        let client = NetworkClient(transport: stub, cache: .memory())
        #expect(try await client.requestStream(for: "https://example.com/greeting").body.collect() == Data("hello".utf8))
        let hit = try await client.requestStream(for: "https://example.com/greeting")
        #expect(hit.response.cacheStatus == .cache)
        #expect(try await hit.body.collect() == Data("hello".utf8))
        #expect(try await hit.body.collect() == Data("hello".utf8), "the cache hit read again")
        #expect(stub.requests.count == 2)
    }

    @Test("an event source sends Accept: text/event-stream, unless the request names its own")
    func eventSourceAccept() async throws {
        let stub = StubTransport(fallback: .text("data: one\n\n", headers: [.header(key: "Content-Type", value: "text/event-stream")]))
        let client = NetworkClient(transport: stub)
        let own = try NetworkRequest(url: "https://example.com/events", headers: [.header(key: "Accept", value: "application/x-events")])
        for request in [try NetworkRequest(url: "https://example.com/events"), own] {
            for try await event in client.eventSource(for: request) {
                #expect(event.data == "one")
                break
            }
        }
        #expect(stub.requests.map { $0.request.headers["Accept"] } == ["text/event-stream", "application/x-events"])
    }
}

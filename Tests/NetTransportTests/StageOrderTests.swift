import Foundation
import NetCore
import NetTestSupport
@testable import NetTransport
import Testing

/// The order of a client's stages, as Docs/Architecture.md gives it, seen from what each stage
/// does to the next: the cache above the concurrency limit, the cookie jar above the cache, call
/// interceptors in list order. On `StubTransport`: the stages are above the transport.
@Suite("NetworkClient: the order of its stages")
struct StageOrderTests {
    @Test("a cache hit is answered while the concurrency limit's only permit is held")
    func cacheHitTakesNoPermit() async throws {
        // By events: the held request is on the transport (its permit taken) before the hit is
        // asked for, and is let go only after the hit has been answered. A hit that waited for a
        // permit would wait for the held request, which waits for the test: not answered.
        let holding = AsyncSignal()
        let release = AsyncSignal()
        let stub = StubTransport { request in
            guard request.url.path == "/hold" else {
                return .text("stored", headers: [NetworkHeader(name: "Cache-Control", value: "max-age=600")])
            }
            holding.fire()
            await release.wait()
            return .status(.ok)
        }
        let client = NetworkClient(transport: stub, maximumConcurrentRequests: 1, cache: .memory(), timeout: TestTiming.hangGuard)
        #expect(try await client.requestData(for: "https://host/cached").response.cacheStatus == .network)
        let held = Task { try await client.requestData(for: "https://host/hold") }
        await holding.wait()
        let answered = LockedBox(false)
        let hit = Task {
            let response = try await client.requestData(for: "https://host/cached")
            answered.mutate { $0 = true }  // answered, not failed: a hit that timed out waiting does not count
            return response
        }
        let answeredWhileHeld = await eventually(within: TestTiming.hangGuard) { answered.read() }
        release.fire()
        #expect(answeredWhileHeld, "the cache hit waited for the permit the held request has")
        let response = try await hit.value
        #expect(response.response.cacheStatus == .cache && response.data == Data("stored".utf8))
        _ = try await held.value
        #expect(stub.requests.map(\.request.url.path) == ["/cached", "/hold"])
    }

    @Test("the cookie jar is above the cache: a response that varies on Cookie is not served for another cookie")
    func cacheSeesTheJarsCookies() async throws {
        // The stub answers with the cookie it was sent, cacheable and varying on Cookie. Were the
        // jar's cookies added below the cache, the cache would see two requests alike and answer
        // the second with the first's body.
        let stub = StubTransport { request in
            .text("cookie: \(request.headers["Cookie"] ?? "none")", headers: [
                NetworkHeader(name: "Cache-Control", value: "max-age=600"), NetworkHeader(name: "Vary", value: "Cookie"),
            ])
        }
        let jar = CookieJar()
        let url = try #require(URL(string: "https://host/page"))
        let client = NetworkClient(transport: stub, cache: .memory(), timeout: TestTiming.hangGuard, cookieJar: jar)
        try jar.storeCookies(from: NetworkHeaders([NetworkHeader(name: "Set-Cookie", value: "session=a")]), for: url)
        let first = try await client.requestData(for: url)
        #expect(String(decoding: first.data, as: UTF8.self) == "cookie: session=a")
        #expect(try await client.requestData(for: url).response.cacheStatus == .cache, "the same cookie: a hit")
        try jar.storeCookies(from: NetworkHeaders([NetworkHeader(name: "Set-Cookie", value: "session=b")]), for: url)
        let second = try await client.requestData(for: url)
        #expect(second.response.cacheStatus == .network)
        #expect(String(decoding: second.data, as: UTF8.self) == "cookie: session=b")
        #expect(stub.requests.count == 2)
    }

    @Test("call interceptors wrap the call in list order, the first outermost")
    func callInterceptorsInListOrder() async throws {
        let events = LockedBox<[String]>([])
        let stub = StubTransport { request in
            events.mutate { $0.append("transport, marked \(request.headers["X-Marks"] ?? "")") }
            return .status(.ok)
        }
        let client = NetworkClient(transport: stub, interceptors: [
            Wrapping(name: "outer", events: events), Wrapping(name: "inner", events: events),
        ], timeout: TestTiming.hangGuard)
        _ = try await client.requestData(for: "https://host/x")
        #expect(events.read() == [
            "outer before", "inner before", "transport, marked outer,inner", "inner after", "outer after",
        ])
    }
}

/// A call interceptor that records when it runs, before and after the call, and marks the request.
private struct Wrapping: NetworkCallInterceptor {
    let name: String
    let events: LockedBox<[String]>

    func interceptCall(
        _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
    ) async throws -> NetworkCallResult {
        events.mutate { $0.append("\(name) before") }
        var marked = request
        let marks = request.headers["X-Marks"].map { "\($0),\(name)" } ?? name
        try marked.headers.set(name: "X-Marks", value: marks)
        let result = await proceed(marked)
        events.mutate { $0.append("\(name) after") }
        return result
    }
}

import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// `NetworkClient(sharesIdenticalGETs: true)` against a real server that holds its answer until
/// the test has every caller waiting: the server's arrival count is the proof.
@Suite("Shared in-flight GETs")
struct SharedRequestsTests {
    static let hang = TestTiming.hangGuard

    /// Waits until `condition` holds; false if it has not within the hang limit.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        await NetTestSupport.eventually(within: hang, condition)
    }

    static func arrivals(_ key: String) -> Int { LoopbackServer.arrivals(key) }
    static func release(_ key: String) { _ = LoopbackServer.heldReleased.withLock { $0.insert(key) } }

    @Test("100 concurrent identical GETs: one request at the server, the same body for every caller", arguments: [false, true])
    func hundredCallers(cached: Bool) async throws {
        let key = UUID().uuidString
        let client = NetworkClient(transport: URLSessionTransport(), cache: cached ? .memory() : nil, sharesIdenticalGETs: true)
        // The client puts the shared stage outside its cache.
        let outermost = client.transport
        let shared = try #require(outermost as? SharedRequestsTransport)
        #expect((shared.base is CachingTransport) == cached)
        let url = try await LoopbackServer.shared.baseURL().absoluteString + "/held/\(key)"
        let bodies = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 { group.addTask { String(decoding: try await client.requestData(for: url).data, as: UTF8.self) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await Self.eventually { shared.waitingCalls == 100 && Self.arrivals(key) == 1 })
        Self.release(key)
        let received = try await bodies.value
        #expect(received.count == 100 && Set(received) == ["body \(key) 1"])
        #expect(Self.arrivals(key) == 1)
        // Once answered, the next call is a new exchange (or, with the cache, a fresh hit).
        let after = String(decoding: try await client.requestData(for: url).data, as: UTF8.self)
        #expect(after == (cached ? "body \(key) 1" : "body \(key) 2"))
    }

    @Test("Cancelling one caller ends only that call; the others get the response from the one request")
    func cancellingOne() async throws {
        let key = UUID().uuidString
        let shared = SharedRequestsTransport(URLSessionTransport())
        let client = NetworkClient(transport: shared)
        let url = try await LoopbackServer.shared.baseURL().absoluteString + "/held/\(key)"
        let first = Task { try await client.requestData(for: url).data }
        let second = Task { try await client.requestData(for: url).data }
        #expect(await Self.eventually { shared.waitingCalls == 2 && Self.arrivals(key) == 1 })
        first.cancel()
        await #expect(throws: CancellationError.self) { _ = try await first.value }
        #expect(shared.waitingCalls == 1)
        Self.release(key)
        #expect(String(decoding: try await second.value, as: UTF8.self) == "body \(key) 1")
        #expect(Self.arrivals(key) == 1)
    }

    @Test("Different headers, methods, timeouts or cache policies are never shared")
    func notShared() async throws {
        let key = UUID().uuidString
        let shared = SharedRequestsTransport(URLSessionTransport())
        let client = NetworkClient(transport: shared)
        let url = try await LoopbackServer.shared.baseURL().absoluteString + "/held/\(key)"
        let plain = Task { try await client.requestData(for: url).data }
        let authorised = Task {
            try await client.requestData(for: NetworkRequest(url: url, headers: [NetworkHeader(name: "Authorization", value: "Bearer other")])).data
        }
        // Another timeout is another request too: it bounds the shared exchange.
        let patient = Task { try await client.requestData(for: NetworkRequest(url: url, timeout: .seconds(300))).data }
        // Another cache policy: a reload must not be answered by an exchange that is not one.
        let reload = Task {
            var request = try NetworkRequest(url: url)
            request.cachePolicy = .reloadIgnoringCacheData
            return try await client.requestData(for: request).data
        }
        // Another method: only GETs are shared.
        let head = Task { try await client.requestData(for: NetworkRequest(url: url, httpMethod: .head)).statusCode }
        #expect(await Self.eventually { Self.arrivals(key) == 5 })
        Self.release(key)
        let bodies = Set([try await plain.value, try await authorised.value, try await patient.value, try await reload.value]
            .map { String(decoding: $0, as: UTF8.self) })
        #expect(bodies.count == 4 && bodies.isSubset(of: (1...5).map { "body \(key) \($0)" }), "\(bodies)")
        #expect(try await head.value == 200)
    }

    @Test("When every caller has left, the exchange is dropped and the next caller starts a new one")
    func everyoneLeaves() async throws {
        let key = UUID().uuidString
        let shared = SharedRequestsTransport(URLSessionTransport())
        let client = NetworkClient(transport: shared)
        let url = try await LoopbackServer.shared.baseURL().absoluteString + "/held/\(key)"
        let callers = [Task { try await client.requestData(for: url).data }, Task { try await client.requestData(for: url).data }]
        #expect(await Self.eventually { shared.waitingCalls == 2 && Self.arrivals(key) == 1 })
        for caller in callers { caller.cancel() }
        for caller in callers { await #expect(throws: CancellationError.self) { _ = try await caller.value } }
        #expect(shared.waitingCalls == 0)
        let next = Task { try await client.requestData(for: url).data }
        #expect(await Self.eventually { Self.arrivals(key) == 2 })
        Self.release(key)
        #expect(String(decoding: try await next.value, as: UTF8.self) == "body \(key) 2")
    }

    @Test("A shared exchange's deadline is held to attemptTimeout when that is shorter", .timeLimit(.minutes(3)))
    func sharedExchangeAttemptTimeout() async throws {
        let key = UUID().uuidString
        let clock = ManualClock()
        let shared = SharedRequestsTransport(URLSessionTransport(), timeout: .seconds(60), attemptTimeout: .seconds(4), clock: clock)
        let client = NetworkClient(transport: shared, timeout: .seconds(600), clock: clock)
        defer { Self.release(key) }
        let url = try await LoopbackServer.shared.baseURL().absoluteString + "/held/\(key)"
        let call = Task { try await client.requestData(for: url).data }
        #expect(await Self.eventually { shared.waitingCalls == 1 && Self.arrivals(key) == 1 })
        await clock.sleeps(atLeast: 2)  // the call's deadline and the shared exchange's
        #expect(clock.pendingDelays == [.seconds(4), .seconds(600)], "not 60 s: the attempt's 4 s")
        clock.advance(by: .seconds(4))
        do {
            _ = try await call.value
            Issue.record("the call on the held exchange succeeded")
        } catch NetworkError.transport(.timedOut) {}
    }

    @Test("A shared exchange ends at its deadline: a caller who joined later fails then, and the next starts afresh", .timeLimit(.minutes(3)))
    func sharedExchangeDeadline() async throws {
        let key = UUID().uuidString
        let clock = ManualClock()
        let client = NetworkClient(transport: URLSessionTransport(), clock: clock, sharesIdenticalGETs: true)
        let shared = try #require(client.transport as? SharedRequestsTransport)
        let url = try await LoopbackServer.shared.baseURL().absoluteString + "/held/\(key)"
        let request = try NetworkRequest(url: url, timeout: .seconds(10))
        let first = Task { try await client.requestData(for: request).data }
        #expect(await Self.eventually { shared.waitingCalls == 1 && Self.arrivals(key) == 1 })
        await clock.sleeps(atLeast: 2)  // the first call's deadline and the shared exchange's
        clock.advance(by: .seconds(5))
        let joined = Task { try await client.requestData(for: request).data }  // its own deadline: at 15 s
        #expect(await Self.eventually { shared.waitingCalls == 2 })
        await clock.sleeps(atLeast: 3)
        clock.advance(by: .seconds(6))  // 11 s: past the first request's 10 s
        for caller in [first, joined] {
            do {
                _ = try await caller.value
                Issue.record("a call on the stalled exchange succeeded")
            } catch NetworkError.transport(.timedOut) {}
        }
        #expect(Self.arrivals(key) == 1)
        // The next caller does not join the stalled exchange: a new one reaches the server.
        let next = Task { try await client.requestData(for: url).data }
        #expect(await Self.eventually { Self.arrivals(key) == 2 })
        Self.release(key)
        #expect(String(decoding: try await next.value, as: UTF8.self) == "body \(key) 2")
    }

    @Test("Streams and downloads are never shared, with each other or with a read into memory, even on a sharing client")
    func streamsPassThrough() async throws {
        let key = UUID().uuidString
        let client = NetworkClient(transport: URLSessionTransport(), sharesIdenticalGETs: true)
        let url = try await LoopbackServer.shared.baseURL().absoluteString + "/held/\(key)"
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let streams = (0..<2).map { _ in Task { try await client.requestStream(for: url).body.collect() } }
        let downloads = (0..<2).map { index in
            Task {
                let file = directory.appendingPathComponent("download-\(index)")
                _ = try await client.requestDownload(for: url, to: file)
                return try Data(contentsOf: file)
            }
        }
        let inMemory = Task { try await client.requestData(for: url).data }
        #expect(await Self.eventually { Self.arrivals(key) == 5 })
        Self.release(key)
        var bodies: Set<String> = []
        for task in streams + downloads + [inMemory] { bodies.insert(String(decoding: try await task.value, as: UTF8.self)) }
        #expect(bodies == Set((1...5).map { "body \(key) \($0)" }))
    }

    static func isInMemoryLimit(_ error: any Error, _ bytes: Int64) -> Bool {
        guard case NetworkError.transport(.responseBodyLimitExceeded(let limit)) = error else { return false }
        return limit == .inMemorySize(bytes: bytes)
    }

    @Test("A shared read keeps the transport's in-memory limit: a smaller one ends it, typed, as without sharing; the shared cap still holds for an unlimited one")
    func transportsLimit() async throws {
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        // The stage itself stops its read at the base's smaller limit (above it, the client's own
        // collector would stop the body anyway).
        let stage = SharedRequestsTransport(URLSessionTransport(configuration: .init(responseLimits: ResponseLimits(maximumInMemoryBodySize: 1_024))))
        var request = try NetworkRequest(url: base + "/bytes/10000")
        request.responseBodyUse = .inMemory
        await #expect {
            _ = try await stage.exchange(request, progress: nil)
        } throws: { Self.isInMemoryLimit($0, 1_024) }
        for shares in [false, true] {
            let limited = URLSessionTransport(configuration: .init(responseLimits: ResponseLimits(maximumInMemoryBodySize: 1_024)))
            let client = NetworkClient(transport: limited, sharesIdenticalGETs: shares)
            #expect(client.transport.responseLimits.maximumInMemoryBodySize == 1_024)
            #expect(try await client.requestData(for: base + "/bytes/1024").data.count == 1_024)
            await #expect("sharing \(shares)") {
                _ = try await client.requestData(for: base + "/bytes/10000")
            } throws: { Self.isInMemoryLimit($0, 1_024) }
        }
        // An unlimited transport under the shared stage: its own cap, here 4 KiB, still holds.
        let unlimited = URLSessionTransport(configuration: .init(responseLimits: .unlimited))
        let client = NetworkClient(transport: SharedRequestsTransport(unlimited, maximumBodySize: 4_096))
        #expect(client.transport.responseLimits.maximumInMemoryBodySize == nil)
        await #expect {
            _ = try await client.requestData(for: base + "/bytes/10000")
        } throws: { Self.isInMemoryLimit($0, 4_096) }
    }
}

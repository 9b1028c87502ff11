#if OpenAPI && AsyncHTTPClient  // the package traits: `swift test --enable-all-traits`
import Foundation
import HTTPTypes
import Net
import NetOpenAPI
@_spi(NetInternals) import NetTransport
import NetTestSupport
import OpenAPIRuntime
import Testing

/// What a generated client gets from Net's chain through NetOpenAPITransport, on both of Net's
/// transports: retries, one refresh for many 401s, the HTTP cache, streamed downloads with
/// backpressure, cancellation.
@Suite("NetOpenAPITransport: Net's chain under a generated client", .serialized)
struct NetOpenAPIFeatureTests {
    @Test("a 503 is retried by RetryPolicy until the operation succeeds", arguments: ClientUnderTest.net)
    func retryOn503(_ under: ClientUnderTest) async throws {
        let client = try await under.client(interceptors: [RetryPolicy(maximumRetries: 3, baseDelay: .zero, jitter: 0)])
        let output = try await client.flaky(path: .init(key: "retry-\(UUID().uuidString)"), query: .init(failures: 2))
        #expect(try output.ok.body.json.attempts == 3)
    }

    @Test("without a retry policy the 503 reaches the generated code as the documented response", arguments: ClientUnderTest.net)
    func noRetryWithoutPolicy(_ under: ClientUnderTest) async throws {
        let output = try await under.client().flaky(path: .init(key: "once-\(UUID().uuidString)"), query: .init(failures: 1))
        guard case .serviceUnavailable = output else {
            Issue.record("expected the 503, got \(output)")
            return
        }
    }

    @Test("a GET answered with max-age is served from the cache the second time: the server sees one request", arguments: ClientUnderTest.net)
    func cacheHit(_ under: ClientUnderTest) async throws {
        let client = try await under.client(cache: .memory())
        let query = Operations.ListItems.Input.Query(limit: 1, q: "cache-\(UUID().uuidString)")
        let first = try await client.listItems(query: query).ok.body.json
        let second = try await client.listItems(query: query).ok.body.json
        #expect(first == second)
        #expect(OpenAPITestServer.state.arrivals("/api/items?" + first.query) == 1)
    }

    /// On AsyncHTTPClientTransport, whose backpressure keeps the server within its buffers until
    /// the close. What is checked is NetOpenAPITransport's part: cancelling the generated code's
    /// task reaches Net's body. URLSessionTransport's own cancellation is the conformance
    /// suite's (TransportStreaming); here its unpaused libcurl would pour the whole gigabyte into
    /// its spool while the cancel waits behind libcurl's queue, stalling the URLSession checks
    /// of the rest of the suite (Docs/Linux-notes.md).
    @Test("cancelling the task that reads a streamed download closes the connection: the server lets go of the body early")
    func cancellation() async throws {
        let under = ClientUnderTest.netAsyncHTTPClient
        let key = "cancel-\(UUID().uuidString)"
        let size: Int64 = 1 << 30
        let client = try await under.client(middlewares: [AddHeader(name: try #require(SentBodyCounter.keyField), value: key)])
        let (firstChunk, continuation) = AsyncStream.makeStream(of: Int.self)
        let reader = Task {
            let body = try await client.download(path: .init(size: size)).ok.body.binary
            var received = 0
            for try await chunk in body {
                received += chunk.count
                continuation.yield(received)
            }
            return received
        }
        for await _ in firstChunk { break }
        reader.cancel()
        let result = await reader.result
        #expect(throws: (any Error).self, "the reader read to the end after its task was cancelled") { try result.get() }
        #expect(await eventually(within: TestTiming.hangGuard) { OpenAPITestServer.state.isReleased(key) }, "the server never saw the connection close")
        #expect(OpenAPITestServer.state.produced(key) < size)
    }
}

/// One refresh for any number of concurrent 401s, through the generated client.
@Suite("NetOpenAPITransport: authentication refresh", .serialized)
struct NetOpenAPIAuthenticationTests {
    @Test("20 concurrent operations with an expired token: one refresh, every operation succeeds with the new token",
          .timeLimit(.minutes(3)), arguments: ClientUnderTest.net)
    func singleFlightRefresh(_ under: ClientUnderTest) async throws {
        let state = OpenAPITestServer.state
        let fresh = "token-\(UUID().uuidString)"
        state.allow(fresh)
        let refreshes = Locked(0)
        let expired = "expired-\(UUID().uuidString)"
        let authentication = AuthenticationInterceptor<String>(
            credential: expired,
            header: { .header(key: "Authorization", value: "Bearer \($0)") },
            refresh: { _ in
                refreshes.withLock { $0 += 1 }
                // Answers once all 20 operations reached the server with the expired token (the
                // barrier holds each signed one until all are), so every 401 meets this refresh
                // in flight or just ended. Bounded: one that never arrives fails the count below.
                let arrived = await eventually(within: TestTiming.hangGuard) { state.arrivals("/api/me Bearer \(expired)") >= 20 }
                #expect(arrived, "not every operation reached the server before the refresh")
                return fresh
            })
        let client = try await under.client(interceptors: [authentication, SigningBarrier(count: 20)])
        let answers = try await withThrowingTaskGroup(of: Components.Schemas.Me.self) { group in
            for _ in 0..<20 { group.addTask { try await client.getMe().ok.body.json } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 20 && answers.allSatisfy { $0.authorization == "Bearer \(fresh)" })
        #expect(refreshes.withLock { $0 } == 1)
        #expect(state.arrivals("/api/me Bearer \(expired)") == 20, "each operation sent once with the expired token")
    }
}

/// A large download through the generated client, read as it arrives.
@Suite("NetOpenAPITransport: a large streamed download", .serialized)
struct NetOpenAPILargeDownloadTests {
    @Test("a 1 GiB body on AsyncHTTPClientTransport: the server is held back while the reader pauses; 256 MiB read in order, then dropped")
    func backpressure() async throws {
        let key = "large-\(UUID().uuidString)"
        let size: Int64 = 1 << 30
        let state = OpenAPITestServer.state
        let client = try await ClientUnderTest.netAsyncHTTPClient.client(
            middlewares: [AddHeader(name: try #require(SentBodyCounter.keyField), value: key)])
        var reader = PatternReader(try await client.download(path: .init(size: size)).ok.body.binary)
        #expect(reader.body.length == .known(size))
        #expect(try await reader.read(upTo: 1))
        // The reader pauses. With backpressure the server's socket stops taking bytes within the
        // buffers: the kernel's (this machine's loopback receive buffer grows to 32 MiB) and at
        // most 8 MiB of the client's own. Without it the server would send 32 MiB past that in
        // well under the 3 s this waits for it. Counted as the socket takes them, not as the
        // handler produces them: see `SentBodyCounter` for what the server itself may queue.
        let buffers = Self.kernelSocketBuffers + (8 << 20)
        // The window is watched, not waited out for an event: 3 s (stretched under sanitizers,
        // where the server sends more slowly too) in which a server not held back sends well
        // past the buffers.
        let overran = await eventually(within: TestTiming.scaled(.seconds(3))) { state.sent(key) - reader.received >= buffers + (32 << 20) }
        #expect(!overran && state.sent(key) - reader.received <= buffers,
                "the server sent \(state.sent(key) - reader.received) bytes ahead of a paused reader (buffers \(buffers))")
        #expect(try await reader.read(upTo: 256 << 20))
        #expect(reader.received >= 256 << 20 && reader.misplaced == 0)
        // The counter counts: what the reader has, the server's socket took first (counted once
        // the server's loop has run the write's promise, an instant later).
        #expect(await eventually(within: TestTiming.hangGuard) { state.sent(key) >= reader.received },
                "the server's socket took \(state.sent(key)) bytes, the reader has \(reader.received)")
        // The whole gigabyte costs a debug build seconds of both cores, which the suite's timing
        // checks beside it would feel; the rest is dropped, and the server sees the close.
        reader = PatternReader(HTTPBody())
        #expect(await eventually(within: TestTiming.hangGuard) { state.isReleased(key) })
        #expect(state.produced(key) < size)
    }

    /// What the kernel may hold of one loopback stream whatever the reader does: the reader's
    /// receive buffer and the writer's send buffer at their autotuning maxima (the last fields of
    /// `tcp_rmem` and `tcp_wmem`; 8 MiB each where they cannot be read).
    static var kernelSocketBuffers: Int64 {
        func maximum(_ name: String) -> Int64 {
            let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/\(name)", encoding: .utf8)
            return text?.split(whereSeparator: \.isWhitespace).last.flatMap { Int64($0) } ?? 8 << 20
        }
        return maximum("tcp_rmem") + maximum("tcp_wmem")
    }

    @Test("a 64 MiB body on URLSessionTransport: every byte, in order (the unread part waits in its spool file)")
    func urlSession() async throws {
        let size: Int64 = 64 << 20
        var reader = PatternReader(try await ClientUnderTest.netURLSession.client().download(path: .init(size: size)).ok.body.binary)
        #expect(reader.body.length == .known(size))
        #expect(try await reader.read(upTo: size))
        #expect(try await reader.read(upTo: size + 1) == false, "the body did not end at its length")
        #expect(reader.received == size && reader.misplaced == 0)
    }
}

/// Reads a body of the server's pattern (byte i is i % 251), checking each chunk's place.
struct PatternReader {
    let body: HTTPBody
    private var chunks: HTTPBody.AsyncIterator
    private(set) var received: Int64 = 0
    private(set) var misplaced = 0

    init(_ body: HTTPBody) {
        self.body = body
        chunks = body.makeAsyncIterator()
    }

    /// Reads until at least `count` bytes in all have arrived; false when the body ended first.
    mutating func read(upTo count: Int64) async throws -> Bool {
        while received < count {
            guard let chunk = try await chunks.next() else { return false }
            if chunk.first != UInt8(received % 251) || chunk.last != UInt8((received + Int64(chunk.count) - 1) % 251) { misplaced += 1 }
            received += Int64(chunk.count)
        }
        return true
    }
}
#endif

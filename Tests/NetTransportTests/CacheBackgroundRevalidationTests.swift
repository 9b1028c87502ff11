import Foundation
import NetCore
import NetTestSupport
@testable import NetTransport
import Synchronization
import Testing

/// A transport in front of URLSessionTransport that holds every conditional request (a
/// revalidation) until released, counting those that arrive: a server that stalls revalidations.
private final class HeldRevalidations: Transport, Sendable {
    private let base = URLSessionTransport()
    private let state = Mutex((arrived: 0, released: false, waiting: [CheckedContinuation<Void, Never>]()))
    let arrivals: AsyncStream<Void>
    private let arrival: AsyncStream<Void>.Continuation

    init() { (arrivals, arrival) = AsyncStream.makeStream() }

    var arrived: Int { state.withLock { $0.arrived } }

    func release() {
        let waiting = state.withLock { state in
            state.released = true
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume() }
    }

    func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        if request.headers.contains(name: "If-None-Match") {
            await withCheckedContinuation { continuation in
                let released = state.withLock { state in
                    state.arrived += 1
                    if !state.released { state.waiting.append(continuation) }
                    return state.released
                }
                arrival.yield()  // after counting: a test woken by it reads the count
                if released { continuation.resume() }
            }
        }
        return try await base.exchange(request, progress: progress)
    }

    var responseLimits: ResponseLimits { base.responseLimits }
}

@Suite("HTTP cache: stale-while-revalidate against a server that stalls revalidations")
struct CacheBackgroundRevalidationTests {
    @Test("Hits on a stale entry whose revalidation stalls start no other: one per key at a time, then a new one once it ended", .timeLimit(.minutes(3)))
    func oneBackgroundRevalidationPerKey() async throws {
        let (id, url) = try await HTTPCacheTests.resource(["cc": "max-age=0, stale-while-revalidate=600", "etag": "\"h\""])
        let cache = HTTPCache.memory()
        let transport = HeldRevalidations()
        let client = NetworkClient(transport: transport, cache: cache)
        _ = try await client.requestData(for: url)  // stored, already stale
        var arrivals = transport.arrivals.makeAsyncIterator()
        #expect(try await client.requestData(for: url).response.cacheStatus == .cache)
        await arrivals.next()  // the background revalidation reached the (stalling) server
        for _ in 0..<20 {
            #expect(try await client.requestData(for: url).response.cacheStatus == .cache)
        }
        #expect(cache.backgroundRevalidationCount == 1)
        #expect(transport.arrived == 1)
        transport.release()
        // Bounded only to catch a revalidation that never ends; a busy machine may take a while.
        _ = await eventually(within: TestTiming.scaled(.seconds(20)), every: .milliseconds(10)) { cache.backgroundRevalidationCount == 0 }
        #expect(try await HTTPCacheTests.hits(id) == (1, 1))
        // The next hit may revalidate again.
        #expect(try await client.requestData(for: url).response.cacheStatus == .cache)
        await arrivals.next()
        _ = try await eventually(within: TestTiming.scaled(.seconds(20)), every: .milliseconds(10)) { try await HTTPCacheTests.hits(id) == (1, 2) }
        #expect(try await HTTPCacheTests.hits(id) == (1, 2))
        #expect(transport.arrived == 2)
    }
}

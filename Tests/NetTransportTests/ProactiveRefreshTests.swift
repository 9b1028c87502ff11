import Foundation
import NetCore
@testable import NetTransport
import NetTestSupport
import Synchronization
import Testing

/// A credential that says when it expires, refreshed before use once it is within a minute of it,
/// against the real loopback server's `/auth/:id` (200 only for `Bearer fresh`).
@Suite("AuthenticationInterceptor: proactive refresh before a credential expires")
struct ProactiveRefreshTests {
    struct Token: Sendable, Equatable {
        var value: String
        var expiresAt: Date
    }

    static func interceptor(
        _ token: Token, expired: LockedValue<Bool>? = nil, rejected: AsyncSignal? = nil, refresh: @escaping @Sendable (Token?) async throws -> Token
    ) -> AuthenticationInterceptor<Token> {
        AuthenticationInterceptor<Token>(
            credential: token,
            header: { .header(key: "Authorization", value: "Bearer \($0.value)") },
            isUnauthorized: { head in
                guard head.statusCode == .unauthorized else { return false }
                rejected?.fire()
                return true
            },
            requiresRefresh: { token, now in
                // `expired` marks the stale token as expiring, whatever its date.
                (expired?.value == true && token.value == "stale") || token.expiresAt.timeIntervalSince(now) < 60
            },
            refresh: refresh)
    }

    @Test("100 concurrent requests with an expiring token: one refresh, the old token never sent")
    func burstBeforeExpiry() async throws {
        let refreshes = Counter()
        let stale = Token(value: "stale", expiresAt: Date().addingTimeInterval(30))
        let auth = Self.interceptor(stale) { rejected in
            #expect(rejected == stale)
            await refreshes.increment()
            return Token(value: "fresh", expiresAt: Date().addingTimeInterval(3600))
        }
        let client = NetworkClient(
            transport: URLSessionTransport(configuration: .init(maximumConnectionsPerHost: 8)),
            interceptors: [auth], timeout: TestTiming.scaled(.seconds(60)))
        let prefix = "pro-\(UUID().uuidString.prefix(8))-"
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        try await withThrowingTaskGroup(of: HTTPCode.self) { group in
            for index in 0..<100 {
                group.addTask { try await client.requestData(for: "\(base)/auth/\(prefix)\(index)").statusCode }
            }
            for try await status in group { #expect(status == 200) }
        }
        #expect(await refreshes.value == 1)
        let arrivals = LoopbackServer.authArrivals(prefix: prefix)
        #expect(arrivals.count == 100, "every request arrives once, none is answered 401")
        #expect(arrivals.allSatisfy { $0.authorization == "Bearer fresh" })
    }

    @Test("expiry is read on the session's clock: no refresh while outside the margin, one inside it")
    func expiryOnTheSessionClock() async throws {
        let clock = ManualClock()
        let replaced = LockedValue<[Token?]>([])
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        let prefix = "clock-\(UUID().uuidString.prefix(8))-"
        // The session's dates start from the system's when the first request is signed, just
        // after this: the real time between the two (a busy machine's) counts against the 240 s
        // of room the first advance leaves outside the margin.
        let first = Token(value: "fresh", expiresAt: Date().addingTimeInterval(600))
        let auth = Self.interceptor(first) { rejected in
            replaced.withLock { $0.append(rejected) }
            return Token(value: "fresh", expiresAt: Date().addingTimeInterval(3600))
        }
        let client = NetworkClient(transport: URLSessionTransport(), interceptors: [auth], clock: clock)

        #expect(try await client.requestData(for: "\(base)/auth/\(prefix)0").statusCode == 200)
        clock.advance(by: .seconds(300))  // 300 s left: outside the 60 s margin
        #expect(try await client.requestData(for: "\(base)/auth/\(prefix)1").statusCode == 200)
        #expect(replaced.value.isEmpty)
        clock.advance(by: .seconds(245))  // 55 s left: inside it
        #expect(try await client.requestData(for: "\(base)/auth/\(prefix)2").statusCode == 200)
        #expect(replaced.value == [first], "the expiring token is the one replaced, once")
        #expect(LoopbackServer.authArrivals(prefix: prefix).count == 3)
    }

    // The refresh is released only once A's 401 has joined it (the store counts the joins), so
    // the run always meets the race: a missing join starts a second refresh, or never joins, and
    // the test fails at the wait for the join or at the refresh count.
    @Test("a 401 arriving while a proactive refresh runs joins it: one refresh for both paths", .timeLimit(.minutes(3)))
    func rejectionJoinsProactiveRefresh() async throws {
        let expired = LockedValue(false)
        let refreshStarted = AsyncSignal()
        let releaseRefresh = AsyncSignal()
        let refreshes = Counter()
        let rejection = AsyncSignal()
        let auth = Self.interceptor(Token(value: "stale", expiresAt: .distantFuture), expired: expired, rejected: rejection) { _ in
            await refreshes.increment()
            refreshStarted.fire()
            await releaseRefresh.wait()
            return Token(value: "fresh", expiresAt: .distantFuture)
        }
        let hold = HoldAfterSigning()
        let client = NetworkClient(transport: URLSessionTransport(), interceptors: [auth, hold])
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        let prefix = "join-\(UUID().uuidString.prefix(8))-"

        // A is signed with the stale token, which does not yet require a refresh, and held.
        hold.holdNext()
        async let first = client.requestData(for: "\(base)/auth/\(prefix)a").statusCode
        await hold.held.wait()
        // Now the token requires a refresh: B starts one before it is sent.
        expired.withLock { $0 = true }
        async let second = client.requestData(for: "\(base)/auth/\(prefix)b").statusCode
        await refreshStarted.wait()
        // A goes out with the stale token, which is still the current credential, and is answered
        // 401 while B's refresh runs: starting a second refresh here would be the bug.
        hold.release()
        await rejection.wait()
        let joined = await eventually(within: TestTiming.scaled(.seconds(20))) { await auth.rejectionsJoiningRefresh() == 1 }
        releaseRefresh.fire()
        #expect(joined, "A's 401 did not join the refresh in progress")
        let statuses = try await (first, second)
        #expect(statuses == (200, 200))
        #expect(await refreshes.value == 1)
        let arrivals = LoopbackServer.authArrivals(prefix: prefix).map { "\($0.id.dropFirst(prefix.count)) \($0.authorization)" }
        #expect(arrivals.sorted() == ["a Bearer fresh", "a Bearer stale", "b Bearer fresh"])
    }

    // The refresh is released only once B, about to be signed with a token it finds expiring,
    // has joined it (the store counts the joins): a second refresh, or B sent before the fresh
    // token, fails the test.
    @Test("a request that finds the token expiring while a 401's refresh runs waits for that refresh", .timeLimit(.minutes(3)))
    func expiringJoinsRejectionRefresh() async throws {
        let expired = LockedValue(false)
        let (refreshStarted, releaseRefresh, refreshes) = (AsyncSignal(), AsyncSignal(), Counter())
        let auth = Self.interceptor(Token(value: "stale", expiresAt: .distantFuture), expired: expired) { _ in
            await refreshes.increment()
            refreshStarted.fire()
            await releaseRefresh.wait()
            return Token(value: "fresh", expiresAt: .distantFuture)
        }
        let client = NetworkClient(transport: URLSessionTransport(), interceptors: [auth])
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        let prefix = "expiring-\(UUID().uuidString.prefix(8))-"
        // A is sent with the stale token, which does not yet require a refresh: its 401 starts one.
        async let first = client.requestData(for: "\(base)/auth/\(prefix)a").statusCode
        await refreshStarted.wait()
        // Now the token is expiring: B must wait for the refresh in progress, not start its own.
        expired.withLock { $0 = true }
        async let second = client.requestData(for: "\(base)/auth/\(prefix)b").statusCode
        let joined = await eventually(within: TestTiming.hangGuard) { await auth.signersJoiningRefresh() >= 1 }
        releaseRefresh.fire()
        #expect(joined, "B did not wait for the refresh in progress")
        let statuses = try await (first, second)
        #expect(statuses == (200, 200))
        #expect(await refreshes.value == 1)
        let arrivals = LoopbackServer.authArrivals(prefix: prefix).map { "\($0.id.dropFirst(prefix.count)) \($0.authorization)" }
        #expect(arrivals.sorted() == ["a Bearer fresh", "a Bearer stale", "b Bearer fresh"])
    }

    @Test("a margin as long as the token lives refreshes before every request until the refresh loop guard stops it")
    func marginAsLongAsTheLifetime() async throws {
        let clock = ManualClock()
        let refreshes = Counter()
        // Tokens live 30 s; the margin is 60 s: every token requires a refresh as soon as it is made.
        let auth = Self.interceptor(Token(value: "first", expiresAt: Date().addingTimeInterval(30))) { _ in
            await refreshes.increment()
            return Token(value: "next", expiresAt: Date().addingTimeInterval(30))
        }
        let client = NetworkClient(transport: StubTransport(fallback: .status(.ok)), interceptors: [auth], clock: clock)
        for _ in 1...5 {
            #expect(try await client.requestData(for: "https://example.com/me").statusCode == 200)
        }
        #expect(await refreshes.value == 5, "one refresh per request")
        // The sixth within the window (the clock never moved) is one refresh too many.
        await #expect {
            _ = try await client.requestData(for: "https://example.com/me")
        } throws: { error in
            guard case AuthenticationError.excessiveRefresh = error else { return false }
            return true
        }
        #expect(await refreshes.value == 5)
    }

    @Test("a failing proactive refresh fails the request with its error; nothing is sent")
    func failedProactiveRefresh() async throws {
        struct Refused: Error, Equatable {}
        let auth = Self.interceptor(Token(value: "stale", expiresAt: Date())) { _ in throw Refused() }
        let client = NetworkClient(transport: URLSessionTransport(), interceptors: [auth])
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        let prefix = "fail-\(UUID().uuidString.prefix(8))-"
        await #expect(throws: Refused.self) { try await client.requestData(for: "\(base)/auth/\(prefix)0") }
        #expect(LoopbackServer.authArrivals(prefix: prefix).isEmpty)
    }
}

/// Holds the next request after it is signed until released, and says when it holds it.
final class HoldAfterSigning: NetworkInterceptor {
    let held = AsyncSignal()
    private let gate = AsyncSignal()
    private let armed = LockedValue(false)

    func holdNext() { armed.withLock { $0 = true } }
    func release() { gate.fire() }

    func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
        let holding = armed.withLock { armed in defer { armed = false }; return armed }
        if holding {
            held.fire()
            await gate.wait()
        }
        return request
    }
}

import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Synchronization
import Testing

/// A thousand concurrent requests whose credential the real loopback server rejects at once.
@Suite("AuthenticationInterceptor under load: 1,000 concurrent 401s on a real server", .timeLimit(.minutes(5)))
struct AuthenticationLoadTests {
    static let count = 1_000

    static func client(
        refresh: @escaping @Sendable (String?) async throws -> String, afterSigning: [any NetworkInterceptor] = []
    ) -> (NetworkClient, AuthenticationInterceptor<String>) {
        let auth = AuthenticationInterceptor<String>(credential: "stale", header: { .header(key: "Authorization", value: "Bearer \($0)") }, refresh: refresh)
        // The default 60 s timeout, stretched under sanitizers like every other time bound: 1,000
        // requests queued behind 64 connections under ThreadSanitizer ran into it.
        let configuration = URLSessionTransport.Configuration(maximumConnectionsPerHost: 64)
        let interceptors: [any NetworkInterceptor] = [auth] + afterSigning
        return (NetworkClient(transport: URLSessionTransport(configuration: configuration), interceptors: interceptors, timeout: TestTiming.scaled(.seconds(60))), auth)
    }

    @Test("exactly one refresh; every request succeeds; none is sent twice with the stale token")
    func oneRefresh() async throws {
        let refreshes = Counter()
        let prefix = "ok-\(UUID().uuidString.prefix(8))-"
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        let (client, auth) = Self.client(refresh: { rejected in
            #expect(rejected == "stale")
            await refreshes.increment()
            // Answers once the server has every request with the stale token (the barrier below
            // sends them all with it): every 401 joins this refresh or sees its new credential.
            // Bounded: a request that never arrives fails the counts below rather than hanging.
            let arrived = await eventually(within: TestTiming.scaled(.seconds(60)), every: .milliseconds(5)) {
                LoopbackServer.authArrivals(prefix: prefix).count >= Self.count
            }
            #expect(arrived, "not every request reached the server before the refresh")
            return "fresh"
        }, afterSigning: [SigningBarrier(count: Self.count)])
        try await withThrowingTaskGroup(of: HTTPCode.self) { group in
            for index in 0..<Self.count {
                group.addTask { try await client.requestData(for: "\(base)/auth/\(prefix)\(index)").statusCode }
            }
            for try await status in group { #expect(status == 200) }
        }
        #expect(await refreshes.value == 1)
        #expect(await auth.refreshCount() == 1)
        let arrivals = LoopbackServer.authArrivals(prefix: prefix)
        let staleByID = Dictionary(grouping: arrivals.filter { $0.authorization == "Bearer stale" }, by: \.id)
        let freshByID = Dictionary(grouping: arrivals.filter { $0.authorization == "Bearer fresh" }, by: \.id)
        #expect(staleByID.count == Self.count && staleByID.values.allSatisfy { $0.count == 1 }, "a request was sent twice with the stale token")
        #expect(freshByID.count == Self.count && freshByID.values.allSatisfy { $0.count == 1 })
        #expect(arrivals.count == 2 * Self.count)
    }

    @Test("a failing refresh: all 1,000 fail with the same error, none resent with the stale token")
    func failedRefresh() async throws {
        let refreshes = Counter()
        // Every request is signed before any is sent, so all 1,000 belong to the burst the one
        // refresh answers; a request first signed after that refresh failed carries a newer
        // generation and may try again, which a slow start on a loaded machine once caused.
        let prefix = "no-\(UUID().uuidString.prefix(8))-"
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        let (client, _) = Self.client(refresh: { _ in
            await refreshes.increment()
            // Fails once the server has every request with the stale token, as `oneRefresh`
            // answers: every request was sent before the failure, by the server's count.
            let arrived = await eventually(within: TestTiming.scaled(.seconds(60)), every: .milliseconds(5)) {
                LoopbackServer.authArrivals(prefix: prefix).count >= Self.count
            }
            #expect(arrived, "not every request reached the server before the refresh")
            throw RefreshRefused()
        }, afterSigning: [SigningBarrier(count: Self.count)])
        let errors = await withTaskGroup(of: (any Error)?.self) { group in
            for index in 0..<Self.count {
                group.addTask {
                    do {
                        _ = try await client.requestData(for: "\(base)/auth/\(prefix)\(index)")
                        return nil
                    } catch { return error }
                }
            }
            var errors: [(any Error)?] = []
            for await error in group { errors.append(error) }
            return errors
        }
        #expect(errors.count == Self.count)
        #expect(errors.allSatisfy { ($0 as? RefreshRefused) == RefreshRefused() }, "every request fails with the refresh's own error")
        #expect(await refreshes.value == 1)
        let arrivals = LoopbackServer.authArrivals(prefix: prefix)
        #expect(arrivals.count == Self.count, "each request sent once, with the stale token, before the refresh failed")
        #expect(arrivals.allSatisfy { $0.authorization == "Bearer stale" })
        #expect(Dictionary(grouping: arrivals, by: \.id).values.allSatisfy { $0.count == 1 }, "a request was resent with the stale token")
    }
}

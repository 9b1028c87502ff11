import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// A thousand concurrent requests whose credential the real loopback server rejects at once.
@Suite("AuthenticationInterceptor under load: 1,000 concurrent 401s on a real server")
struct AuthenticationLoadTests {
    static let count = 1_000

    /// Arrivals at the server for this test's ids, as (id, Authorization).
    static func arrivals(prefix: String) -> [(id: String, authorization: String)] {
        LoopbackServer.authLog.withLock { $0 }.filter { $0.id.hasPrefix(prefix) }
    }

    static func client(refresh: @escaping @Sendable (String?) async throws -> String) -> (NetworkClient, AuthenticationInterceptor<String>) {
        let auth = AuthenticationInterceptor<String>(credential: "stale", header: { .header(key: "Authorization", value: "Bearer \($0)") }, refresh: refresh)
        // The default 60 s timeout, stretched under sanitizers like every other time bound: 1,000
        // requests queued behind 64 connections under ThreadSanitizer ran into it.
        let configuration = URLSessionTransport.Configuration(maximumConnectionsPerHost: 64)
        return (NetworkClient(transport: URLSessionTransport(configuration: configuration), interceptors: [auth], timeout: TestTiming.scaled(.seconds(60))), auth)
    }

    @Test("exactly one refresh; every request succeeds; none is sent twice with the stale token")
    func oneRefresh() async throws {
        let refreshes = Counter()
        let (client, auth) = Self.client { rejected in
            #expect(rejected == "stale")
            await refreshes.increment()
            try await Task.sleep(for: .milliseconds(100))
            return "fresh"
        }
        let prefix = "ok-\(UUID().uuidString.prefix(8))-"
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        try await withThrowingTaskGroup(of: HTTPCode.self) { group in
            for index in 0..<Self.count {
                group.addTask { try await client.requestData(for: "\(base)/auth/\(prefix)\(index)").statusCode }
            }
            for try await status in group { #expect(status == 200) }
        }
        #expect(await refreshes.value == 1)
        #expect(await auth.refreshCount() == 1)
        let arrivals = Self.arrivals(prefix: prefix)
        let staleByID = Dictionary(grouping: arrivals.filter { $0.authorization == "Bearer stale" }, by: \.id)
        let freshByID = Dictionary(grouping: arrivals.filter { $0.authorization == "Bearer fresh" }, by: \.id)
        #expect(staleByID.values.allSatisfy { $0.count == 1 }, "a request was sent twice with the stale token")
        #expect(freshByID.count == Self.count && freshByID.values.allSatisfy { $0.count == 1 })
        #expect(arrivals.count == staleByID.count + Self.count)
    }

    @Test("a failing refresh: all 1,000 fail with the same error, none resent with the stale token")
    func failedRefresh() async throws {
        let refreshes = Counter()
        let (client, _) = Self.client { _ in
            await refreshes.increment()
            try await Task.sleep(for: .milliseconds(100))
            throw RefreshRefused()
        }
        let prefix = "no-\(UUID().uuidString.prefix(8))-"
        let base = try await LoopbackServer.shared.baseURL().absoluteString
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
        let arrivals = Self.arrivals(prefix: prefix)
        #expect(arrivals.allSatisfy { $0.authorization == "Bearer stale" })
        #expect(Dictionary(grouping: arrivals, by: \.id).values.allSatisfy { $0.count == 1 }, "a request was resent with the stale token")
    }
}

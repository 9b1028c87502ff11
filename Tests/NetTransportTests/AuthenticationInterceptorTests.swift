import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Testing

@Suite("AuthenticationInterceptor: single-flight refresh on StubTransport")
struct AuthenticationInterceptorTests {
    /// A server that accepts only `Bearer <valid>`.
    func server(accepting valid: String) -> StubTransport {
        StubTransport { request in
            request.headers["Authorization"] == "Bearer \(valid)"
                ? .text("ok").delayed(by: .milliseconds(20))
                : .status(.unauthorized).delayed(by: .milliseconds(20))
        }
    }

    func bearer(_ token: String) -> NetworkHeader { .header(key: "Authorization", value: "Bearer \(token)") }

    @Test("100 concurrent 401s cause exactly one refresh, and all succeed with the new credential", .timeLimit(.minutes(3)))
    func hundredConcurrent() async throws {
        let stub = server(accepting: "fresh")
        let refreshes = Counter()
        let auth = AuthenticationInterceptor<String>(credential: "stale", header: bearer) { rejected in
            #expect(rejected == "stale")
            await refreshes.increment()
            // Answers once all 100 requests have been sent with the stale credential (the barrier
            // below holds each signed one until all are), so every 401 meets this refresh in
            // flight or just ended, however late a loaded machine starts a task. Bounded: a
            // request that never arrives fails the count below rather than hanging the test.
            let sent = await eventually(within: TestTiming.scaled(.seconds(20))) { stub.requests.count >= 100 }
            #expect(sent, "\(stub.requests.count) of 100 requests reached the server before the refresh")
            return "fresh"
        }
        let client = NetworkClient(transport: stub, interceptors: [auth, SigningBarrier(count: 100)], timeout: TestTiming.hangGuard)
        try await withThrowingTaskGroup(of: HTTPCode.self) { group in
            for index in 0..<100 {
                group.addTask { try await client.requestData(for: "https://host/item/\(index)").statusCode }
            }
            for try await status in group { #expect(status == 200) }
        }
        #expect(await refreshes.value == 1)
        #expect(await auth.refreshCount() == 1)
        #expect(try await auth.credential() == "fresh")
        let rejected = stub.requests.filter { $0.request.headers["Authorization"] == "Bearer stale" }.count
        let accepted = stub.requests.filter { $0.request.headers["Authorization"] == "Bearer fresh" }.count
        #expect(rejected == 100 && accepted == 100)
        #expect(rejected + accepted == stub.requests.count)
    }

    @Test("a failed refresh fails every waiting request with the same error", .timeLimit(.minutes(3)))
    func refreshFailure() async throws {
        let refreshes = Counter()
        let stub = server(accepting: "fresh")
        let auth = AuthenticationInterceptor<String>(credential: "stale", header: bearer) { _ in
            await refreshes.increment()
            // Fails once every request has been sent (signed with the stale credential: the
            // barrier below holds each signed one until all are), so the whole burst is one the
            // refresh answers, however late a loaded machine starts a task; a request first signed
            // after the failure would rightly try a refresh of its own.
            let sent = await eventually(within: TestTiming.scaled(.seconds(20))) { stub.requests.count >= 50 }
            #expect(sent, "\(stub.requests.count) of 50 requests reached the server before the refresh")
            throw RefreshRefused()
        }
        let client = NetworkClient(transport: stub, interceptors: [auth, SigningBarrier(count: 50)], timeout: TestTiming.hangGuard)
        var failures = 0
        await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do { _ = try await client.requestData(for: "https://host/x"); return nil } catch { return error }
                }
            }
            for await error in group where error is RefreshRefused { failures += 1 }
        }
        #expect(failures == 50)
        #expect(await refreshes.value == 1)
    }

    @Test("with no credential, the first request fetches one before it is sent")
    func noInitialCredential() async throws {
        let stub = server(accepting: "first")
        let auth = AuthenticationInterceptor<String>(credential: nil, header: bearer) { rejected in
            #expect(rejected == nil)
            return "first"
        }
        #expect(try await NetworkClient(transport: stub, interceptors: [auth]).requestData(for: "https://host/x").statusCode == 200)
        #expect(stub.requests.count == 1)
    }

    @Test("a server that rejects every credential trips the refresh loop guard")
    func refreshLoop() async throws {
        let refreshes = Counter()
        let auth = AuthenticationInterceptor<String>(
            credential: "t0", refreshWindow: RefreshWindow(interval: .seconds(30), maximumRefreshes: 3), header: bearer
        ) { _ in "t\(await refreshes.increment())" }
        // The window is measured on the session's clock: a manual one that never moves, so the three
        // refreshes fall within it however slowly a loaded machine makes the calls.
        let client = NetworkClient(transport: server(accepting: "never"), interceptors: [auth], maximumRetryCount: 10,
                                   clock: ManualClock())
        await #expect(throws: AuthenticationError.excessiveRefresh(count: 3, within: .seconds(30))) {
            _ = try await client.requestData(for: "https://host/x")
        }
        #expect(await refreshes.value == 3)
    }

    @Test("a credential signed under a name Net does not know is dropped by a redirect to another origin, and that origin's 401 is returned without a refresh")
    func customHeaderAcrossOrigins() async throws {
        let stub = StubTransport { request in
            switch request.url.host() {
            case "api.example.com":
                request.headers["PRIVATE-TOKEN"] == "t0"
                    ? .status(.found, headers: [.header(key: "Location", value: "https://files.example.net/f")])
                    : .status(.unauthorized)
            default: .status(.unauthorized)  // the other origin refuses whatever arrives
            }
        }
        let refreshes = Counter()
        let auth = AuthenticationInterceptor<String>(credential: "t0", header: { .header(key: "PRIVATE-TOKEN", value: $0) }) { _ in
            "t\(await refreshes.increment())"
        }
        let client = NetworkClient(transport: stub, interceptors: [auth])
        let response = try await client.requestData(for: "https://api.example.com/download")
        #expect(response.statusCode == 401 && response.response.url.host() == "files.example.net")
        #expect(await refreshes.value == 0)
        #expect(stub.requests.map { $0.request.url.host() } == ["api.example.com", "files.example.net"])
        #expect(stub.requests.last?.request.headers["PRIVATE-TOKEN"] == nil)
    }

    @Test("a redirect that leaves the origin and comes back (an SSO bounce) arrives without the credential: its 401 is returned, not refreshed")
    func bounceBackAcrossOrigins() async throws {
        let stub = StubTransport { request in
            switch (request.url.host(), request.url.path()) {
            case ("api.example.com", "/start"):
                request.headers["Authorization"] == "Bearer t0"
                    ? .status(.found, headers: [.header(key: "Location", value: "https://sso.example.net/bounce")])
                    : .status(.unauthorized)
            case ("sso.example.net", _): .status(.found, headers: [.header(key: "Location", value: "https://api.example.com/back")])
            default: .status(.unauthorized)  // /back: the credential did not come back with the redirect
            }
        }
        let refreshes = Counter()
        let auth = AuthenticationInterceptor<String>(credential: "t0", header: bearer) { _ in "t\(await refreshes.increment())" }
        let response = try await NetworkClient(transport: stub, interceptors: [auth]).requestData(for: "https://api.example.com/start")
        #expect(response.statusCode == 401 && response.response.url.path() == "/back")
        #expect(await refreshes.value == 0)
        #expect(stub.requests.count == 3 && stub.requests.last?.request.headers["Authorization"] == nil)
    }

    @Test("composed with RetryPolicy and a concurrency limit, auth still refreshes once")
    func composed() async throws {
        let refreshes = Counter()
        let auth = AuthenticationInterceptor<String>(credential: "stale", header: bearer) { _ in
            await refreshes.increment()
            return "fresh"
        }
        let client = NetworkClient(transport: server(accepting: "fresh"),
                                   interceptors: [auth, RetryPolicy(baseDelay: .milliseconds(1))],
                                   maximumConcurrentRequests: 4, timeout: TestTiming.hangGuard)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let status = try await client.requestData(for: "https://host/x").statusCode
                    #expect(status == 200)
                }
            }
            try await group.waitForAll()
        }
        #expect(await refreshes.value == 1)
    }
}

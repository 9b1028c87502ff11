import Foundation
import NetCore
@testable import NetTransport
import NetTestSupport
import Testing

/// A credential refresh runs in a task of its own, which calls wait for; a call that is cancelled,
/// or whose deadline passes, must stop waiting at once rather than stay until a refresh that may
/// never end does, and the refresh must go on for the calls that come after.
@Suite("AuthenticationInterceptor: calls waiting on a refresh can leave")
struct RefreshCancellationTests {
    func bearer(_ token: String) -> NetworkHeader { .header(key: "Authorization", value: "Bearer \(token)") }

    @Test("the call that started a held refresh and a 401 that joined it end as cancelled; the refresh then serves the next call", .timeLimit(.minutes(3)))
    func cancelledWaiters() async throws {
        let stub = StubTransport { request in request.headers["Authorization"] == "Bearer fresh" ? .text("ok") : .status(.unauthorized) }
        let (started, release) = (AsyncSignal(), AsyncSignal())
        let auth = AuthenticationInterceptor<String>(credential: "stale", header: bearer) { _ in
            started.fire()
            await release.wait()
            return "fresh"
        }
        // Both requests are signed with the stale credential before either is sent, so both meet 401.
        let client = NetworkClient(transport: stub, interceptors: [auth, SigningBarrier(count: 2)])
        let calls = (0..<2).map { index in Task { try await client.requestData(for: "https://host/\(index)") } }
        await started.wait()
        let joined = await eventually(within: TestTiming.scaled(.seconds(20))) { await auth.rejectionsJoiningRefresh() == 1 }
        #expect(joined, "the second 401 did not join the refresh")
        for call in calls { call.cancel() }
        for call in calls {
            await #expect(throws: CancellationError.self) { _ = try await call.value }
        }
        #expect(await auth.refreshCount() == 0, "the calls left while the refresh was still held")
        release.fire()
        #expect(try await client.requestData(for: "https://host/after").statusCode == 200)
        #expect(await auth.refreshCount() == 1)
        #expect(stub.requests.last?.request.headers["Authorization"] == "Bearer fresh")
    }

    @Test("a call whose deadline passes while it waits for a refresh fails with timedOut", .timeLimit(.minutes(3)))
    func deadlineWhileWaiting() async throws {
        let release = AsyncSignal()
        defer { release.fire() }
        let auth = AuthenticationInterceptor<String>(credential: nil, header: bearer) { _ in
            await release.wait()
            return "fresh"
        }
        let client = NetworkClient(transport: StubTransport { _ in .text("ok") }, interceptors: [auth])
        do {
            _ = try await client.requestData(for: try NetworkRequest(url: "https://host/x", timeout: .milliseconds(200)))
            Issue.record("the call ended although its credential never came")
        } catch NetworkError.transport(.timedOut) {
            #expect(await auth.refreshCount() == 0)
        }
    }
}

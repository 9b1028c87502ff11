import Foundation
import NetCore
import NetTestSupport
import Testing
@_spi(NetInternals) @testable import NetTransport

/// Docs/Architecture.md, stage 1: a call's alarm is "dropped the moment the attempt ends". Read
/// off the process's one `DeadlineScheduler` after calls of the kinds below have ended (on
/// `StubTransport`, so on the path where each attempt runs in a task of its own), in a process of
/// its own (an exit test), so that no other check's calls are live beside them.
@Suite("The process's deadlines after real calls")
struct DeadlinesAfterCallsTests {
    @Test("calls that succeed, retry, time out, stream, download, are dropped or cancelled leave no live deadline")
    func noDeadlineOutlivesItsCall() async {
        await #expect(processExitsWith: .success) {
            let live = await DeadlinesAfterCallsTests.liveDeadlinesAfterCalls()
            if live != 0 {
                FileHandle.standardError.write(Data("\(live) deadlines live after every call ended\n".utf8))
                exit(EXIT_FAILURE)
            }
        }
    }

    /// Runs one call of each kind to its end, then counts the deadlines still live.
    static func liveDeadlinesAfterCalls() async -> Int {
        let held = AsyncSignal()
        let stub = StubTransport { request in
            switch request.url.path {
            case "/ok": return .text("ok")
            case "/stream": return .text(String(repeating: "x", count: 100_000))
            case "/hang", "/held":
                if request.url.path == "/held" { held.fire() }
                try await Task.sleep(for: .seconds(3_600))
                return .status(.ok)
            default: return .status(.serviceUnavailable)
            }
        }
        let client = NetworkClient(transport: stub, interceptors: [RetryPolicy(baseDelay: .milliseconds(1), jitter: 0)])
        guard DeadlineScheduler.shared.liveDeadlines == 0 else { return -1 }
        _ = try? await client.requestData(for: "https://example.com/ok")
        _ = try? await client.requestData(for: "https://example.com/busy")  // two retries, two backoff waits
        _ = try? await client.requestData(for: NetworkRequest(url: "https://example.com/hang", timeout: .milliseconds(20)))
        if let stream = try? await client.requestStream(for: "https://example.com/stream") {
            _ = try? await stream.body.collect()
        }
        _ = try? await client.requestStream(for: "https://example.com/stream")  // dropped unread
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-deadlines-\(UUID().uuidString)")
        _ = try? await client.requestDownload(for: "https://example.com/ok", to: file)
        try? FileManager.default.removeItem(at: file)
        let cancelled = Task { try await client.requestData(for: "https://example.com/held") }
        await held.wait()
        cancelled.cancel()
        _ = await cancelled.result
        return DeadlineScheduler.shared.liveDeadlines
    }
}

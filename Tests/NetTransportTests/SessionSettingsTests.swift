import Foundation
import NetCore
import NetTestSupport
@testable import NetTransport
import Testing

/// A call reads its session's settings once, at its start, and keeps them for all its attempts
/// (Docs/Architecture.md, "Where a call runs"): a session of your own that changes them while a
/// call runs changes the calls that start afterwards.
@Suite("A call keeps the settings its session had when it started")
struct SessionSettingsTests {
    /// Answers the first attempt that sees a 503 by moving to another transport and allowing no
    /// retries, then asking for a retry.
    actor SwitchingSession: NetworkSession {
        private(set) var transport: any Transport
        private(set) var maximumRetryCount = 5
        /// A deadline the check is not about (the default 60 s is one a slow run can spend).
        let timeout = TestTiming.hangGuard
        private let next: any Transport
        init(transport: any Transport, next: any Transport) {
            self.transport = transport
            self.next = next
        }

        func interceptResponse(networkSession: any NetworkSession, originalRequest: NetworkRequest, retryNumber: Int,
                               result: Result<NetworkSessionInterception, any Error>) async throws -> NetworkSessionInterceptionResult {
            guard case .success(let interception) = result, interception.statusCode == 503 else { return .nothing }
            transport = next
            maximumRetryCount = 0
            return .retry(originalRequest)
        }
    }

    @Test("settings changed during a call (transport, retry cap) apply from the next call on")
    func settingsKeptForTheCall() async throws {
        let first = StubTransport()
        first.on(nil, "/x", respond: .status(503), .status(200))
        let second = StubTransport()
        second.on(nil, "/x", respond: .status(202))
        let session = SwitchingSession(transport: first, next: second)
        #expect(try await session.requestData(for: "https://api.test/x").statusCode == 200,
                "the retry went out on the call's transport, under its retry cap")
        #expect(first.requests.count == 2 && second.requests.isEmpty)
        #expect(try await session.requestData(for: "https://api.test/x").statusCode == 202)
        #expect(second.requests.count == 1)
    }
}

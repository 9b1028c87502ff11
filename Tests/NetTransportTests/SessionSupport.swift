import Foundation
import NetTestSupport
import NetCore
import NetTransport

/// A session in the seed's style that counts its interceptor calls and can be told to retry.
actor CountingSession: NetworkSession {
    let transport: any Transport
    let maximumRetryCount: Int
    private let retries: Int
    private(set) var requestInterceptions = 0
    private(set) var responseInterceptions: [Int] = []

    /// A deadline none of its checks is about: the hang guard, not the default 60 s, which a
    /// sanitized run of the whole suite on two cores can spend before a call's task is scheduled.
    var timeout: Duration { TestTiming.hangGuard }

    init(transport: any Transport, retries: Int, maximumRetryCount: Int = 5) {
        self.transport = transport
        self.retries = retries
        self.maximumRetryCount = maximumRetryCount
    }

    func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible {
        requestInterceptions += 1
        var request = originalRequest
        try request.headers.set(name: "X-Attempt", value: String(requestInterceptions))
        return request
    }

    func interceptResponse(
        networkSession: any NetworkSession, originalRequest: NetworkRequest, retryNumber: Int,
        result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult {
        responseInterceptions.append(retryNumber)
        return retryNumber < retries ? .retry(originalRequest) : .nothing
    }
}

/// A test error a refresh can fail with.
struct RefreshRefused: Error, Equatable {}

/// Counts from any task.
actor Counter {
    private(set) var value = 0
    private(set) var peak = 0
    private(set) var current = 0
    @discardableResult func increment() -> Int { value += 1; return value }
    func enter() { current += 1; peak = max(peak, current) }
    func leave() { current -= 1 }
}

import Foundation
import NetCore

/// The seed's session protocol: an actor that sends requests through a ``Transport`` and lets you
/// intercept every request before it goes out and every result before it comes back.
///
/// Adopt it with one stored property; everything else has a default:
///
/// ```swift
/// actor AppSession: NetworkSession {
///     let transport: any Transport
///     init(transport: any Transport) { self.transport = transport }
/// }
/// let response = try await AppSession(transport: URLSessionTransport()).requestData(for: "https://example.com")
/// ```
///
/// Each call runs within its deadline (``timeout``) a retry loop: the request goes through ``interceptRequest(networkSession:originalRequest:)``,
/// is sent (following redirects as ``redirectPolicy`` says), and the result (a response or an
/// error) goes through
/// ``interceptResponse(networkSession:originalRequest:retryNumber:result:)`` exactly once. Returning
/// `.retry` sends the new request through `interceptRequest` again; after ``maximumRetryCount``
/// retries the last result is returned as it is. Cancellation is checked before every attempt,
/// ends backoff waits at once, and is never intercepted. ``NetworkClient`` is a ready-made session
/// built from reusable ``NetworkInterceptor``s.
public protocol NetworkSession: Actor {
    /// Sends the requests.
    var transport: any Transport { get }

    /// The most retries one call may make, whatever the interceptors ask. Five by default.
    var maximumRetryCount: Int { get }

    /// Whether calls follow redirects. `.follow(limit: 10)` by default.
    var redirectPolicy: RedirectPolicy { get }

    /// The limit for a whole call (redirects, retries and their waits, and the body of calls that
    /// read it) when its request sets no ``NetworkRequest/timeout``. Sixty seconds by default.
    /// A ``requestStream(for:)`` call's deadline ends when the response head arrives.
    var timeout: Duration { get }

    /// The most one attempt may take (redirects included), within ``timeout``: a slow attempt then
    /// fails with `.timedOut` and a retry policy may try again. `nil` (the default) for none.
    var attemptTimeout: Duration? { get }

    /// The clock deadlines and retry waits are measured on: `ContinuousClock` by default; a
    /// manual clock in tests.
    var clock: any Clock<Duration> { get }

    /// Called before every attempt (retries included) with the request about to be sent; returns
    /// the request to send. The default returns it unchanged.
    func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible

    /// Called once per attempt with what came back, a response whatever its status or the error
    /// that prevented one, and the request that was sent. `retryNumber` is 0 on the first
    /// attempt. Throwing ends the call with that error. The default returns `.nothing`.
    func interceptResponse(
        networkSession: any NetworkSession,
        originalRequest: NetworkRequest,
        retryNumber: Int,
        result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult
}

extension NetworkSession {
    /// Five retries at most per call.
    public var maximumRetryCount: Int { 5 }

    /// Follows up to ten redirects.
    public var redirectPolicy: RedirectPolicy { .follow(limit: 10) }

    /// Sixty seconds.
    public var timeout: Duration { .seconds(60) }

    /// No per-attempt limit.
    public var attemptTimeout: Duration? { nil }

    /// `ContinuousClock`.
    public var clock: any Clock<Duration> { ContinuousClock() }

    /// Returns the request unchanged. Nonisolated, so a call does not visit the actor for it.
    public nonisolated func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible {
        originalRequest
    }

    /// Returns `.nothing`: the result goes to the caller as it is. Nonisolated, so a call does
    /// not visit the actor for it.
    public nonisolated func interceptResponse(
        networkSession: any NetworkSession,
        originalRequest: NetworkRequest,
        retryNumber: Int,
        result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult {
        .nothing
    }
}

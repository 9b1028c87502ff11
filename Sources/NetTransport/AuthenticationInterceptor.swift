import Foundation
import NetCore

/// Signs requests with a credential and refreshes it when the server answers 401, once for any
/// number of concurrent 401s.
///
/// - Every request is signed with the current credential (the header ``header`` builds). With no
///   credential yet, or one that `requiresRefresh` says is about to expire, the request first
///   waits for a refresh, so a credential known to be expired is never sent.
/// - Refreshes are single-flight across both paths: requests that need a credential while any
///   refresh runs (started before sending or after a 401) wait for that one.
/// - A 401 on a request signed with the current credential starts a refresh; 401s arriving while
///   it runs wait for the same refresh. A 401 on a request signed with an older credential is
///   simply retried, signed anew.
/// - When the refresh throws, every waiting request fails with that same error, and so does
///   every request signed before it ended whose 401 arrives later: one burst, one refresh.
/// - More than ``RefreshWindow/maximumRefreshes`` refreshes within ``RefreshWindow/interval``
///   throws ``AuthenticationError/excessiveRefresh(count:within:)``: a server that rejects every
///   new credential cannot make the client loop.
public struct AuthenticationInterceptor<Credential: Sendable>: NetworkInterceptor {
    /// Builds the header that carries a credential, such as `Authorization: Bearer …`.
    public let header: @Sendable (Credential) -> NetworkHeader
    /// Tells whether a response rejects the credential; a 401 by default.
    public let isUnauthorized: @Sendable (NetworkResponseHead) -> Bool
    private let store: CredentialStore<Credential>

    /// Creates the interceptor.
    ///
    /// - Parameters:
    ///   - credential: the credential to start with, or `nil` to fetch one before the first request.
    ///   - refreshWindow: the refresh loop guard.
    ///   - header: builds the header carrying a credential.
    ///   - isUnauthorized: tells whether a response rejects the credential.
    ///   - requiresRefresh: tells whether a credential must be refreshed before it is used, given
    ///     now on the session's clock (so a test's manual clock can expire it); for example
    ///     `{ token, now in token.expiresAt.timeIntervalSince(now) < 60 }` refreshes a minute
    ///     before expiry. Never, by default: only a 401 refreshes.
    ///   - refresh: fetches a new credential, given the one being replaced (rejected by the server
    ///     or found to require a refresh), if any.
    public init(
        credential: Credential?,
        refreshWindow: RefreshWindow = RefreshWindow(),
        header: @escaping @Sendable (Credential) -> NetworkHeader,
        isUnauthorized: @escaping @Sendable (NetworkResponseHead) -> Bool = { $0.statusCode == .unauthorized },
        requiresRefresh: @escaping @Sendable (_ credential: Credential, _ now: Date) -> Bool = { _, _ in false },
        refresh: @escaping @Sendable (_ rejected: Credential?) async throws -> Credential
    ) {
        self.header = header
        self.isUnauthorized = isUnauthorized
        self.store = CredentialStore(credential: credential, window: refreshWindow, requiresRefresh: requiresRefresh, refresh: refresh)
    }

    /// The credential requests are signed with now (after any refresh in progress).
    public func credential() async throws -> Credential {
        try await store.current().credential
    }

    /// How many refreshes have succeeded so far.
    public func refreshCount() async -> Int {
        await store.refreshCount
    }

    /// How many 401s have joined a refresh already in progress (for tests: no public use).
    func rejectionsJoiningRefresh() async -> Int {
        await store.rejectionsJoiningRefresh
    }

    /// How many requests about to be signed have waited for a refresh in progress (for tests).
    func signersJoiningRefresh() async -> Int {
        await store.signersJoiningRefresh
    }

    /// Signs `request` with the current credential, waiting for a refresh in progress.
    public func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
        let (credential, generation) = try await store.current()
        let field = header(credential)
        var signed = request
        try signed.headers.set(name: field.name, value: field.value)
        // Whatever its name, it is a credential: a redirect to another origin drops it, the
        // cache keeps answers to it apart, logs and archives redact it.
        signed.secretHeaderNames.insert(field.name)
        signed.credentialGeneration = generation
        return signed
    }

    /// On a 401 from the origin the request was signed for, refreshes (once for all concurrent
    /// 401s) and retries the request. A 401 after a redirect to another origin (which dropped the
    /// credential), even one that led back, is returned as it is.
    public func interceptResponse(
        _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult {
        guard case .success(let interception) = result, isUnauthorized(interception.response) else { return .nothing }
        // A 401 after a redirect left the origin is not a rejection of this credential, which
        // that redirect dropped (and a later one back does not restore): refreshing would not
        // help, and each retry would refresh. The attempt's hops are in its metrics.
        let hops = interception.metrics.attempts.lazy.filter { $0.retryNumber == retryNumber }.map(\.url)
        guard RedirectRule.sameOrigin(interception.response.url, request.url),
              hops.allSatisfy({ RedirectRule.sameOrigin($0, request.url) }) else { return .nothing }
        try await store.refreshAfterRejection(of: request, header: header)
        return .retry(request)
    }
}

/// The refresh loop guard of an ``AuthenticationInterceptor``.
public struct RefreshWindow: Sendable, Hashable {
    /// The window refreshes are counted in. 30 s by default.
    public var interval: Duration
    /// The most refreshes allowed within ``interval``. Five by default.
    public var maximumRefreshes: Int

    /// Creates a guard.
    public init(interval: Duration = .seconds(30), maximumRefreshes: Int = 5) {
        self.interval = interval
        self.maximumRefreshes = max(1, maximumRefreshes)
    }
}

/// Why an ``AuthenticationInterceptor`` gave up.
public enum AuthenticationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The credential was refreshed `count` times within `within`: the server keeps rejecting it.
    case excessiveRefresh(count: Int, within: Duration)

    /// A readable account of the failure.
    public var description: String {
        switch self {
        case .excessiveRefresh(let count, let within):
            "the credential was refreshed \(count) times within \(within) and is still rejected"
        }
    }
}

import NetCore

/// The credential of an ``AuthenticationInterceptor`` and its single-flight refresh.
actor CredentialStore<Credential: Sendable> {
    private var credential: Credential?
    private var refreshing: Task<Credential, any Error>?
    private var recentRefreshes: [ContinuousClock.Instant] = []
    private let window: RefreshWindow
    private let refresh: @Sendable (Credential?) async throws -> Credential
    /// Refreshes that succeeded.
    private(set) var refreshCount = 0

    init(credential: Credential?, window: RefreshWindow, refresh: @escaping @Sendable (Credential?) async throws -> Credential) {
        self.credential = credential
        self.window = window
        self.refresh = refresh
    }

    /// The credential to sign with: the result of a refresh in progress, the stored one, or a
    /// freshly fetched one when there is none yet.
    func current() async throws -> Credential {
        if let refreshing { return try await refreshing.value }
        if let credential { return credential }
        return try await startRefresh(rejected: nil)
    }

    /// After a 401: joins the refresh in progress, starts one if `request` carried the current
    /// credential, or does nothing if it carried an older one (a retry will sign it anew).
    func refreshAfterRejection(of request: NetworkRequest, header: (Credential) -> NetworkHeader) async throws {
        if let refreshing {
            _ = try await refreshing.value
            return
        }
        if let credential {
            let field = header(credential)
            guard request.headers[field.name] == field.value else { return }
        }
        _ = try await startRefresh(rejected: credential)
    }

    private func startRefresh(rejected: Credential?) async throws -> Credential {
        let now = ContinuousClock.now
        recentRefreshes.removeAll { now - $0 > window.interval }
        guard recentRefreshes.count < window.maximumRefreshes else {
            throw AuthenticationError.excessiveRefresh(count: recentRefreshes.count, within: window.interval)
        }
        recentRefreshes.append(now)
        let refresh = self.refresh
        let task = Task { try await refresh(rejected) }
        refreshing = task
        let result = await task.result
        refreshing = nil
        let fresh = try result.get()
        credential = fresh
        refreshCount += 1
        return fresh
    }
}

import NetCore

/// The credential of an ``AuthenticationInterceptor`` and its single-flight refresh.
actor CredentialStore<Credential: Sendable> {
    private var credential: Credential?
    private var refreshing: Task<Credential, any Error>?
    /// When recent refreshes started, on the calling session's clock (`ContinuousClock` outside one).
    private var recentRefreshes: [ClockReading] = []
    /// Counts finished refreshes, successful or not; requests are stamped with it when signed.
    private var generation = 0
    /// The last refresh, if it failed: requests signed before it ended share its error.
    private var lastFailure: (generation: Int, error: any Error)?
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
    func current() async throws -> (credential: Credential, generation: Int) {
        if let refreshing { return (try await refreshing.value, generation) }
        if let credential { return (credential, generation) }
        let fresh = try await startRefresh(rejected: nil)
        return (fresh, generation)
    }

    /// After a 401: joins the refresh in progress, starts one if `request` carried the current
    /// credential, or does nothing if it carried an older one (a retry will sign it anew).
    func refreshAfterRejection(of request: NetworkRequest, header: (Credential) -> NetworkHeader) async throws {
        if let refreshing {
            _ = try await refreshing.value
            return
        }
        // A request of the burst whose refresh failed fails the same way, rather than starting
        // another refresh for the same rejected credential.
        if let lastFailure, let signed = request.credentialGeneration, signed <= lastFailure.generation {
            throw lastFailure.error
        }
        if let credential {
            let field = header(credential)
            guard request.headers[field.name] == field.value else { return }
        }
        _ = try await startRefresh(rejected: credential)
    }

    private func startRefresh(rejected: Credential?) async throws -> Credential {
        recentRefreshes.removeAll { $0.elapsed > window.interval }
        guard recentRefreshes.count < window.maximumRefreshes else {
            throw AuthenticationError.excessiveRefresh(count: recentRefreshes.count, within: window.interval)
        }
        recentRefreshes.append(ClockReading(SessionClock.current ?? ContinuousClock()))
        let refresh = self.refresh
        let task = Task { try await refresh(rejected) }
        refreshing = task
        let result = await task.result
        refreshing = nil
        generation += 1
        do {
            let fresh = try result.get()
            lastFailure = nil
            credential = fresh
            refreshCount += 1
            return fresh
        } catch {
            lastFailure = (generation - 1, error)
            throw error
        }
    }
}

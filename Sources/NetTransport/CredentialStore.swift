import Foundation
import NetCore

/// The credential of an ``AuthenticationInterceptor`` and its single-flight refresh.
actor CredentialStore<Credential: Sendable> {
    private var credential: Credential?
    /// The refresh in progress, with the generation its credential will carry.
    private var refreshing: SharedTaskResult<(Credential, Int)>?
    /// When recent refreshes started, on the calling session's clock (`ContinuousClock` outside one).
    private var recentRefreshes: [ClockReading] = []
    /// Counts finished refreshes, successful or not; requests are stamped with it when signed.
    private var generation = 0
    /// The last refresh, if it failed: requests signed before it ended share its error.
    private var lastFailure: (generation: Int, error: any Error)?
    private let window: RefreshWindow
    private let refresh: @Sendable (Credential?) async throws -> Credential
    private let requiresRefresh: @Sendable (Credential, Date) -> Bool
    /// The wall clock on the first calling session's clock, read for ``requiresRefresh``: a test's
    /// manual clock then moves a credential towards its expiry without sleeping.
    private var dates: ClockedDate?
    /// Refreshes that succeeded.
    private(set) var refreshCount = 0
    /// Rejections that found a refresh in progress and waited for it: a test's signal that a 401
    /// has joined a refresh before the test lets that refresh end.
    private(set) var rejectionsJoiningRefresh = 0
    /// Requests about to be signed that found a refresh in progress and waited for it: the same
    /// signal for the signing path.
    private(set) var signersJoiningRefresh = 0

    init(
        credential: Credential?, window: RefreshWindow,
        requiresRefresh: @escaping @Sendable (Credential, Date) -> Bool,
        refresh: @escaping @Sendable (Credential?) async throws -> Credential
    ) {
        self.credential = credential
        self.window = window
        self.requiresRefresh = requiresRefresh
        self.refresh = refresh
    }

    /// The credential to sign with: the result of a refresh in progress, the stored one while it
    /// does not require a refresh, or a freshly fetched one.
    ///
    /// The refresh task is stored before this actor first suspends, so every caller arriving
    /// while it runs joins it: one refresh for a burst, whichever path started it. A caller that
    /// is cancelled (its call's deadline among the reasons) stops waiting at once; the refresh
    /// goes on for the others.
    func current() async throws -> (credential: Credential, generation: Int) {
        if let refreshing {
            signersJoiningRefresh += 1
            return try await refreshing.value()
        }
        if let credential, !requiresRefresh(credential, now()) { return (credential, generation) }
        return try await startRefresh(rejected: credential)
    }

    /// Now: the system's date on the default clock (so clock corrections count), or the date
    /// advanced by the session's own clock (a test's manual clock).
    private func now() -> Date {
        guard let clock = SessionClock.current, !(clock is ContinuousClock) else { return Date() }
        if let dates { return dates.now() }
        let started = ClockedDate(clock)
        dates = started
        return started.now()
    }

    /// After a 401: joins the refresh in progress, starts one if `request` carried the current
    /// credential, or does nothing if it carried an older one (a retry will sign it anew).
    func refreshAfterRejection(of request: NetworkRequest, header: (Credential) -> NetworkHeader) async throws {
        if let refreshing {
            rejectionsJoiningRefresh += 1
            _ = try await refreshing.value()
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

    private func startRefresh(rejected: Credential?) async throws -> (credential: Credential, generation: Int) {
        recentRefreshes.removeAll { $0.elapsed > window.interval }
        guard recentRefreshes.count < window.maximumRefreshes else {
            throw AuthenticationError.excessiveRefresh(count: recentRefreshes.count, within: window.interval)
        }
        recentRefreshes.append(ClockReading(SessionClock.current ?? ContinuousClock()))
        let refresh = self.refresh
        // Refreshes are single-flight, so the one in progress ends generation `generation`:
        // waiters get the number their credential carries from the task itself, whenever they
        // resume relative to this actor's bookkeeping below.
        let next = generation + 1
        // The task keeps the books itself, so a refresh whose starter gave up still ends as one.
        let task = Task {
            let result: Result<Credential, any Error>
            do { result = .success(try await refresh(rejected)) } catch { result = .failure(error) }
            return try self.finishRefresh(result, generation: next)
        }
        let shared = SharedTaskResult(task)
        refreshing = shared
        return try await shared.value()
    }

    /// Records the refresh that ends generation `next - 1` and returns its credential.
    private func finishRefresh(_ result: Result<Credential, any Error>, generation next: Int) throws -> (Credential, Int) {
        refreshing = nil
        generation = next
        switch result {
        case .success(let fresh):
            lastFailure = nil
            credential = fresh
            refreshCount += 1
            return (fresh, next)
        case .failure(let error):
            lastFailure = (next - 1, error)
            throw error
        }
    }
}

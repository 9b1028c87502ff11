import NetCore

/// How an event source waits between connections: the server's `retry:` time (or
/// ``defaultRetry``) after a connection that delivered events, and a doubling backoff, never
/// shorter than ``minimumBackoff``, while connections deliver none.
///
/// | connections in a row without an event | wait before the next |
/// | --- | --- |
/// | 0 (the last connection delivered events) | `retry` |
/// | 1 | max(`retry`, `minimumBackoff`) |
/// | n | max(`retry`, `minimumBackoff`) × 2ⁿ⁻¹ |
///
/// Every wait is capped at ``maximumDelay``. So a server that accepts and closes (or sends only a
/// comment, with `retry: 0`) cannot make the client reconnect in a tight loop; one that sends an
/// event each time and says `retry: 0` is reconnected to at once, as it asked. After
/// ``maximumAttempts`` connections in a row that received nothing at all (refused, failed, or
/// closed before a byte) the source throws
/// ``NetworkError/StreamFailure/reconnectionsExhausted(attempts:lastFailure:)``; a quiet feed whose
/// heartbeat comments arrive is never given up on.
public struct EventSourceReconnection: Sendable, Hashable {
    /// The wait when the server has not sent `retry:`: 3 seconds, as browsers use.
    public var defaultRetry: Duration
    /// The shortest wait after an attempt that delivered no event.
    public var minimumBackoff: Duration
    /// The longest wait, whatever the server's `retry:` or the backoff says.
    public var maximumDelay: Duration
    /// How many connections in a row may receive nothing before the source gives up; `nil` never
    /// gives up.
    public var maximumAttempts: Int?

    /// Creates a reconnection policy.
    public init(
        defaultRetry: Duration = .seconds(3),
        minimumBackoff: Duration = .milliseconds(250),
        maximumDelay: Duration = .seconds(30),
        maximumAttempts: Int? = 8
    ) {
        self.defaultRetry = defaultRetry
        self.minimumBackoff = minimumBackoff
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// The wait before the next connection, after `failures` connections in a row without an event,
    /// given the server's last `retry:` time.
    /// Every duration is held to zero…``Duration/longestWait`` first (they are variables, and
    /// `retry:` is the server's), so the doubling cannot overflow and no wait is longer than a
    /// clock can sleep.
    public func delay(retry: Duration?, failures: Int) -> Duration {
        let maximum = Self.held(maximumDelay)
        let base = Self.held(retry ?? defaultRetry)
        guard failures > 0 else { return min(base, maximum) }
        var wait = max(base, Self.held(minimumBackoff))
        var doublings = failures - 1
        // Stops once the cap is reached (a wait below it, at most `longestWait`, doubles without
        // overflow), or at once for a zero wait, whatever `failures` is.
        while doublings > 0, (wait < maximum), (wait > .zero) {
            wait *= 2
            doublings -= 1
        }
        return min(wait, maximum)
    }

    /// `duration` held to zero…``Duration/longestWait``.
    private static func held(_ duration: Duration) -> Duration {
        max(.zero, duration.heldToLongestWait)
    }
}

extension Duration {
    /// The longest wait Net keeps, about 31,700 years: a longer timeout, delay or debounce means
    /// "never" and is held to it. `Duration` reaches 10^20 s, and its `components` (which every
    /// clock's `sleep` reads) trap past `Int64.max` seconds, as do sums near that; this is far
    /// inside both.
    package static let longestWait = Duration.seconds(1_000_000_000_000)

    /// This duration, at most ``longestWait`` either way.
    package var heldToLongestWait: Duration { min(max(self, .zero - .longestWait), .longestWait) }

    /// The duration in seconds as a `Double`, for curl's `--max-time`, Dispatch and Foundation;
    /// at most ``longestWait`` either way.
    package var secondsValue: Double {
        let (seconds, attoseconds) = heldToLongestWait.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole nanoseconds, `Int64.max` (or `.min`) past what that holds: what SwiftNIO's timeouts
    /// and swift-metrics' timers take.
    package var wholeNanoseconds: Int64 {
        if self >= .nanoseconds(Int64.max) { return .max }
        if self <= .nanoseconds(Int64.min) { return .min }
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Milliseconds with one decimal, as Net's reports show times: `12.3`.
    package var millisecondsText: String {
        let (seconds, attoseconds) = heldToLongestWait.components
        let tenths = seconds * 10_000 + attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

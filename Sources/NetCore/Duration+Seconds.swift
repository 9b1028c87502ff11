extension Duration {
    /// The duration in seconds as a `Double`, for curl's `--max-time`, Dispatch and Foundation.
    package var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole nanoseconds, `Int64.max` past what that holds: what SwiftNIO's timeouts and
    /// swift-metrics' timers take.
    package var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled + attoseconds / 1_000_000_000
    }

    /// Milliseconds with one decimal, as Net's reports show times: `12.3`.
    package var millisecondsText: String {
        let (seconds, attoseconds) = components
        let tenths = seconds * 10_000 + attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

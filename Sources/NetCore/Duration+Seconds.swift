extension Duration {
    /// The duration in seconds as a `Double`, for curl's `--max-time`, Dispatch and Foundation.
    package var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

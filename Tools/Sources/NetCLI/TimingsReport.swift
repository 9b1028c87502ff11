import Net

/// `--timings`: what each attempt of a call spent, as `curl -w` reports it, for standard error.
///
/// One line per attempt (its request and outcome), then one line per phase the transport could
/// see, `  first byte 12.3 ms`, each measured from the start of the call; phases a transport
/// cannot see are left out rather than printed as zero. The last line is `total`.
enum TimingsReport {
    static func text(_ metrics: NetworkMetrics, total: Duration) -> String {
        var lines: [String] = []
        for (index, attempt) in metrics.attempts.enumerated() {
            let outcome = attempt.statusCode.map { "→ \($0.rawValue)" } ?? "failed (\(attempt.errorType ?? "unknown"))"
            let cache = attempt.cacheStatus.map { $0 == .network ? "" : " (\($0))" } ?? ""
            lines.append("attempt \(index + 1): \(attempt.method) \(attempt.redactedURL) \(outcome)\(cache)")
            for (phase, time) in attempt.phases.seen {
                lines.append("  \(phase.label) \(milliseconds(time)) ms")
            }
            for retry in metrics.retries where retry.afterAttempt == index {
                let who = retry.requestedBy.map { " by \($0)" } ?? ""
                lines.append("retry after \(retry.reason)\(who)")
            }
        }
        lines.append("total \(milliseconds(total)) ms")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Milliseconds with one decimal: `12.3`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = seconds * 10_000 + attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

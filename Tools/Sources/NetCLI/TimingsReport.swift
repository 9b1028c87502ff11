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

    /// Milliseconds with one decimal: `12.3` (the library's `millisecondsText` is package-internal,
    /// and this package is a client of Net's public API).
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = seconds * 10_000 + attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// Keeps the metrics of every call the command makes, failed ones included, for `--timings`.
actor TimingsCollector: NetworkCallInterceptor {
    private var calls: [(metrics: NetworkMetrics, returned: ContinuousClock.Instant)] = []

    nonisolated func interceptCall(
        _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
    ) async throws -> NetworkCallResult {
        let result = await proceed(request)
        await keep(result.metrics)
        return result
    }

    private func keep(_ metrics: NetworkMetrics) {
        calls.append((metrics, .now))
    }

    /// Each call's report. `bodyEnded`: when this command finished reading the last call's body
    /// itself (a stream, a resumed download), which the call's own metrics end before.
    func report(bodyEnded: ContinuousClock.Instant? = nil) -> String {
        calls.enumerated().map { index, call in
            var metrics = call.metrics
            var total = metrics.duration ?? .zero
            if let bodyEnded, index == calls.count - 1 {
                total += bodyEnded - call.returned
                if let last = metrics.attempts.indices.last, metrics.attempts[last].phases[.bodyComplete] == nil {
                    metrics.attempts[last].phases[.bodyComplete] = total
                }
            }
            return TimingsReport.text(metrics, total: total)
        }.joined()
    }
}

import NetCore

/// A transport whose exchanges the call deadline can stop without cancelling a task: for the
/// requests it names, every wait of an exchange (its head, then its body) ends when the exchange
/// is cancelled through ``InlineAttempt/attach(_:)``.
///
/// Such an attempt runs in its caller's task instead of one of its own. A task per attempt is
/// there so that the deadline can cancel the attempt and not the caller, whose task would
/// otherwise stay cancelled after the call; creating it, and waiting for it, cost a few µs of the
/// 30 to 35 µs a small GET took on AsyncHTTPClient at 64 in flight (Benchmarks/NOTEBOOK.md,
/// "The attempt's task").
package protocol DeadlineStoppableTransport: Transport {
    /// Whether an attempt for `request`, and for each request its redirects lead to, runs only
    /// exchanges that attach themselves (``InlineAttempt/attach(_:)``) and wait for nothing else.
    func stopsExchangesOnDeadline(_ request: NetworkRequest) -> Bool
}

/// An interceptor whose `interceptRequest` never waits (it adjusts the request and returns):
/// a ``NetworkClient`` whose interceptors all are such can run its attempts in the caller's task,
/// where the deadline could not interrupt a wait of theirs. Net's own: `RetryPolicy`,
/// `LoggingInterceptor`, `ObservabilityInterceptor`; not `AuthenticationInterceptor`, which waits
/// for a refresh.
package protocol RequestInterceptionWithoutWaiting: NetworkInterceptor {}

/// The deadline of an attempt that runs in its caller's task (``CallDeadline/run(inline:_:)``).
package enum InlineAttempt {
    /// The alarm of the attempt whose exchange this task is making, if the attempt runs inline:
    /// bound by the redirect stage around each `Transport.exchange` (``ExchangeScope``), and
    /// nowhere else.
    static var alarm: DeadlineAlarm? { ExchangeScope.current?.alarm }

    /// Hands `exchange` to the deadline of the attempt this task runs inline, if any: when the
    /// deadline passes, the exchange is cancelled (at once, if it has passed already). A
    /// ``DeadlineStoppableTransport`` calls this as each exchange starts, before it first waits.
    package static func attach(_ exchange: some CancellableAttempt) {
        alarm?.attach(attempt: exchange)
    }

    /// Whether `transport` stops `request`'s exchanges on the deadline by itself.
    static func stops(_ request: NetworkRequest, on transport: (any DeadlineStoppableTransport)?) -> Bool {
        transport?.stopsExchangesOnDeadline(request) ?? false
    }
}

/// What the redirect stage binds around each `Transport.exchange` of a session call: the
/// exchange's metrics record (``ExchangeMetricsRecorder/current``) and, for an attempt run in its
/// caller's task, the deadline's alarm (``InlineAttempt``). One task-local for both: binding the
/// two and reading them back cost about 1,340 instructions per call (valgrind's callgrind,
/// Benchmarks/NOTEBOOK.md, "instruction counts per call"). A transport that wants both reads
/// ``current`` once.
package final class ExchangeScope: Sendable {
    /// The exchange this task is making; `nil` outside one.
    @TaskLocal package static var current: ExchangeScope?

    /// Where the exchange's phases are recorded, if the call records metrics.
    package let record: ExchangeMetricsRecorder?
    /// The deadline's alarm, if the attempt runs in its caller's task.
    let alarm: DeadlineAlarm?

    init(record: ExchangeMetricsRecorder?, alarm: DeadlineAlarm?) {
        self.record = record
        self.alarm = alarm
    }

    /// Hands `exchange` to this scope's alarm, if any (``InlineAttempt/attach(_:)``).
    package func attach(_ exchange: some CancellableAttempt) {
        alarm?.attach(attempt: exchange)
    }

    /// Throws `CancellationError` if this scope's alarm has rung: a transport asks before it sends
    /// a request again (a stale pooled connection), so that nothing is sent after the deadline.
    package func checkDeadline() throws {
        try alarm?.checkNotRung()
    }
}

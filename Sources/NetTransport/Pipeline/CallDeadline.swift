import Dispatch
import NetCore

/// The one deadline mechanism: a call's deadline, measured on the session's clock from the call's
/// start, spanning its redirects, retries, backoff waits and (for calls that read it) the body.
///
/// Each attempt runs against an alarm set to the time that remains: when it rings first, the
/// attempt's task is cancelled (or, for an attempt run in its caller's task, its exchange: see
/// ``run(inline:_:)``), which every stage and transport turns into closing its exchange, and the
/// attempt fails with ``NetworkError/TransportFailure/timedOut(_:)``, which the interceptors see
/// like any other failure. No retry starts after the deadline.
struct CallDeadline: Sendable {
    let limit: Duration
    /// The most one attempt may take, when the session sets it.
    let attemptLimit: Duration?
    private let start: ClockReading
    private let sleeper: @Sendable (Duration) async throws -> Void
    /// `ContinuousClock`: sleeps and alarms are ``DeadlineScheduler`` entries, not tasks.
    private let onScheduler: Bool
    /// For the error's text only, which is built when a deadline passes, not for every call.
    private let request: NetworkRequest
    private let defaultTimeout: Duration

    /// The request's own ``NetworkRequest/timeout`` wins over the session's `timeout`. Out of
    /// line: its cast to `ContinuousClock`, a type that is not `@frozen`, would take room from the
    /// task in an async caller's frame.
    @inline(never)
    init(request: NetworkRequest, timeout: Duration, clock: any Clock<Duration>, attemptTimeout: Duration? = nil) {
        if clock is ContinuousClock {
            self.init(request: request, timeout: timeout, start: .now, attemptTimeout: attemptTimeout)
        } else {
            self.init(request: request, timeout: timeout, start: ClockReading(clock), sleeper: Self.sleeper(clock),
                      onScheduler: false, attemptTimeout: attemptTimeout)
        }
    }

    /// A deadline on `ContinuousClock` from `start`, a reading the caller has already taken.
    init(request: NetworkRequest, timeout: Duration, start: ContinuousReading, attemptTimeout: Duration? = nil) {
        self.init(request: request, timeout: timeout, start: ClockReading(start), sleeper: Self.schedulerSleep,
                  onScheduler: true, attemptTimeout: attemptTimeout)
    }

    private init(request: NetworkRequest, timeout: Duration, start: ClockReading,
                 sleeper: @escaping @Sendable (Duration) async throws -> Void, onScheduler: Bool, attemptTimeout: Duration?) {
        // Held to the longest wait: a clock's sleep traps on a deadline past `Int64.max` seconds.
        limit = (request.timeout ?? timeout).heldToLongestWait
        attemptLimit = attemptTimeout?.heldToLongestWait
        self.start = start
        self.sleeper = sleeper
        self.onScheduler = onScheduler
        self.request = request
        defaultTimeout = timeout
    }

    /// The time left; zero or less once the deadline has passed.
    var remaining: Duration { limit - start.elapsed }

    /// The error of a call that ran out of time: a ``NetworkError``, boxed, so that the frames
    /// that throw it hold a reference, not the error's 217 bytes.
    var timedOut: any Error {
        // Not inlined: its text would take room in the async frames that throw it.
        @inline(never) get {
            NetworkError.transport(.timedOut("no complete response within \(request.timeout.map { "\($0)" } ?? "the default timeout \(defaultTimeout)") (\(request))"))
        }
    }

    /// Runs `work` in the time that remains (or the attempt's limit, if shorter), or throws
    /// ``timedOut``.
    ///
    /// The work runs in a task of its own, so that the deadline can cancel it without cancelling
    /// the caller (whose retry loop goes on, and whose task must not stay cancelled after the
    /// call); one task and one alarm per attempt, because a task group racing a sleeping child
    /// cost about five executor hops per request. The task disarms the alarm the moment the work
    /// ends, so an attempt that failed for its own reason keeps its error even if the alarm comes
    /// before the caller resumes.
    ///
    /// `inline` (an attempt whose every wait is an exchange of a ``DeadlineStoppableTransport``)
    /// runs the work in the caller's task, and hands it the alarm: the redirect stage binds it
    /// around each exchange for the exchange to attach to (``InlineAttempt``), so the alarm cancels
    /// the exchange each wait belongs to, not a task. The work gets `nil` on the task path.
    ///
    /// Inlined into its callers (an attempt's `run` makes every call's): one async frame fewer
    /// (Benchmarks/NOTEBOOK.md, "Fewer async frames").
    @inline(__always)
    func run<Result: Sendable>(inline: Bool = false, _ work: @escaping @Sendable (DeadlineAlarm?) async throws -> Result) async throws -> Result {
        let callLeft = remaining
        guard callLeft > .zero else { throw timedOut }
        let left = attemptLimit.map { Swift.min($0, callLeft) } ?? callLeft
        let alarm = DeadlineAlarm()
        // Armed first: an attempt attached after the alarm has rung is cancelled as it attaches.
        arm(alarm, after: left)
        do {
            if inline { return try await Self.runInline(work, alarm: alarm) }
            return try await Self.runInTask(work, alarm: alarm)
        } catch {
            // Failed because the alarm cancelled it, unless the caller was cancelled too.
            guard alarm.rang else { throw error }
            try Task.checkCancellation()
            if let attemptLimit, attemptLimit < callLeft { throw attemptTimedOut(attemptLimit) }
            throw timedOut
        }
    }

    /// The error of an attempt that ran out of its own time, `limit`: boxed, as ``timedOut`` is.
    @inline(never)  // its text stays out of the async frame that throws it
    private func attemptTimedOut(_ limit: Duration) -> any Error {
        NetworkError.transport(.timedOut("no complete response within the attempt timeout \(limit) (\(request))"))
    }

    /// The work in the caller's task, with the alarm for its exchanges to attach to. Inlined into
    /// its caller, which then calls the work with no async frame between (each costs a task
    /// allocation and two executor checks; Benchmarks/NOTEBOOK.md, "Fewer async frames"); its
    /// temporaries are the alarm and the work. ``runInTask(_:alarm:)``, with a task's, is not.
    @inline(__always)
    private static func runInline<Result: Sendable>(
        _ work: @escaping @Sendable (DeadlineAlarm?) async throws -> Result, alarm: DeadlineAlarm
    ) async throws -> Result {
        defer { alarm.disarm() }
        return try await work(alarm)
    }

    /// The work in a task of its own, which the alarm cancels; the task disarms the alarm the
    /// moment the work ends.
    @inline(never)
    private static func runInTask<Result: Sendable>(
        _ work: @escaping @Sendable (DeadlineAlarm?) async throws -> Result, alarm: DeadlineAlarm
    ) async throws -> Result {
        let attempt = Task {
            defer { alarm.disarm() }
            return try await work(nil)
        }
        alarm.attach(attempt: attempt)
        // `value`, not `result`: the generic `Result` of `result` had its metadata looked up at run
        // time on every call.
        return try await withTaskCancellationHandler {
            try await attempt.value
        } onCancel: {
            attempt.cancel()
        }
    }

    /// Waits `delay` (a retry's backoff); throws ``timedOut`` if the deadline comes first.
    func wait(_ delay: Duration) async throws {
        let left = remaining
        try await sleeper(min(delay, max(left, .zero)))
        guard delay < left else { throw timedOut }
    }

    /// Sleeps on `clock` (a test's clock), whose instant type an `any Clock` cannot name.
    private static func sleeper<C: Clock<Duration>>(_ clock: C) -> @Sendable (Duration) async throws -> Void {
        { try await clock.sleep(until: clock.now.advanced(by: $0), tolerance: nil) }
    }

    /// Sleeps on `ContinuousClock` (the default): a ``DeadlineScheduler`` entry, dropped the moment
    /// the call ends. A cancelled `Task.sleep` stays allocated until its deadline, and 100,000
    /// calls under the 60 s default would hold about 60 MB of them.
    @Sendable private static func schedulerSleep(_ delay: Duration) async throws {
        try await DeadlineScheduler.shared.sleep(for: delay)
    }

    /// Sets `alarm` to ring after `delay`: on `ContinuousClock` a ``DeadlineScheduler`` entry (no
    /// task, and nothing left behind once disarmed), on another clock a task sleeping on it.
    private func arm(_ alarm: DeadlineAlarm, after delay: Duration) {
        guard onScheduler else {
            let sleeper = sleeper
            alarm.attach(sleeper: Task {
                guard (try? await sleeper(delay)) != nil else { return }
                alarm.ring()
            })
            return
        }
        alarm.attach(timer: DeadlineScheduler.shared.schedule(after: delay, alarm))
    }
}

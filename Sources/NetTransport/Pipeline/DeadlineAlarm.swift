import Dispatch

/// One attempt's alarm: rings once at its deadline unless disarmed first, cancelling the attempt
/// (its task, or its exchange: ``attach(attempt:)``), and says afterwards whether it rang. What rings it (a ``DeadlineScheduler`` entry, which
/// is the alarm itself, or a task sleeping on a test's clock) is dropped when it is disarmed, so a
/// finished attempt leaves nothing behind.
final class DeadlineAlarm: DeadlineAction {
    private struct State: Sendable {
        var rang = false
        var disarmed = false
        var timer: Int?
        var sleeper: Task<Void, Never>?
        var attempt: (any CancellableAttempt)?
    }

    private let state = Locked(State())

    /// What ringing cancels: the attempt's task, or (for an attempt run in its caller's task)
    /// its current exchange, which replaces the one before it. Cancelled at once if the alarm has
    /// rung already: an exchange that starts after the deadline must not go on.
    func attach(attempt: some CancellableAttempt) {
        let rang = state.withLock { state -> Bool in
            guard !state.disarmed else { return false }
            state.attempt = attempt
            return state.rang
        }
        if rang { attempt.cancel() }
    }

    /// Keeps the scheduler entry that rings the alarm, to drop it on disarming (at once, if the
    /// alarm was disarmed before it was set).
    func attach(timer: Int) {
        let disarmed = state.withLock { state -> Bool in
            state.timer = timer
            return state.disarmed
        }
        if disarmed { DeadlineScheduler.shared.cancel(timer) }
    }

    /// Keeps the task that rings the alarm, to cancel it on disarming (at once, if the alarm was
    /// disarmed before it was set).
    func attach(sleeper: Task<Void, Never>) {
        let disarmed = state.withLock { state -> Bool in
            state.sleeper = sleeper
            return state.disarmed
        }
        if disarmed { sleeper.cancel() }
    }

    /// Cancels the attempt unless the alarm was disarmed first.
    func ring() {
        ringing()?.cancel()
    }

    /// On the scheduler's thread: cancelling runs the attempt's cancellation handlers, which may
    /// be anyone's, so not on the one thread every deadline of the process shares.
    func deadlinePassed() {
        guard let attempt = ringing() else { return }
        DispatchQueue.global().async { attempt.cancel() }
    }

    /// Marks the alarm rung, unless it was disarmed, and hands over the task to cancel.
    /// Once: what attaches after the alarm has rung is cancelled as it attaches.
    private func ringing() -> (any CancellableAttempt)? {
        state.withLock { state -> (any CancellableAttempt)? in
            guard !state.disarmed, !state.rang else { return nil }
            state.rang = true
            return state.attempt
        }
    }

    /// Throws `CancellationError` once the alarm has rung: for an attempt run in its caller's
    /// task, before anything that would start an exchange (the deadline turns the error into
    /// `timedOut`), since that task is not cancelled and would not stop by itself.
    func checkNotRung() throws {
        if rang { throw CancellationError() }
    }

    /// Whether the alarm rang before it was disarmed.
    var rang: Bool {
        state.withLock { $0.rang }
    }

    /// Stops the alarm, once; later calls change nothing.
    func disarm() {
        let (timer, sleeper) = state.withLock { state -> (Int?, Task<Void, Never>?) in
            state.disarmed = true
            defer { (state.timer, state.sleeper, state.attempt) = (nil, nil, nil) }
            return (state.timer, state.sleeper)
        }
        if let timer { DeadlineScheduler.shared.cancel(timer) }
        sleeper?.cancel()
    }
}

/// What the alarm cancels: an attempt's `Task` handle of any result type (held without a closure
/// around it: one allocation fewer per attempt), or the exchange of an attempt that runs in its
/// caller's task (``InlineAttempt``).
package protocol CancellableAttempt: Sendable {
    /// Stops the attempt: it then fails with `CancellationError` or its transport's equivalent,
    /// which the deadline turns into ``NetworkError/TransportFailure/timedOut(_:)``. Called once,
    /// from any thread.
    func cancel()
}

extension Task: CancellableAttempt {}

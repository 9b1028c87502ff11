/// One attempt's alarm: rings once at its deadline unless disarmed first, and says afterwards
/// whether it rang. What rings it (a ``DeadlineScheduler`` entry or a task sleeping on a test's
/// clock) is dropped when it is disarmed, so a finished attempt leaves nothing behind.
final class DeadlineAlarm: Sendable {
    private struct State: Sendable {
        var rang = false
        var disarmed = false
        var timer: Int?
        var sleeper: Task<Void, Never>?
    }

    private let state = Locked(State())

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

    /// Runs `action` unless the alarm was disarmed first.
    func ring(_ action: @Sendable () -> Void) {
        let rings = state.withLock { state -> Bool in
            guard !state.disarmed else { return false }
            state.rang = true
            return true
        }
        if rings { action() }
    }

    /// Whether the alarm rang before it was disarmed.
    var rang: Bool {
        state.withLock { $0.rang }
    }

    /// Stops the alarm, once; later calls change nothing.
    func disarm() {
        let (timer, sleeper) = state.withLock { state -> (Int?, Task<Void, Never>?) in
            state.disarmed = true
            defer { (state.timer, state.sleeper) = (nil, nil) }
            return (state.timer, state.sleeper)
        }
        if let timer { DeadlineScheduler.shared.cancel(timer) }
        sleeper?.cancel()
    }
}

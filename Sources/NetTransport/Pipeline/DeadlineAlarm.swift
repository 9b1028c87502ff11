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

    /// Keeps the scheduler entry that rings the alarm, to drop it on disarming.
    func attach(timer: Int) {
        state.withLock { $0.timer = timer }
    }

    /// Keeps the task that rings the alarm, to cancel it on disarming.
    func attach(sleeper: Task<Void, Never>) {
        state.withLock { $0.sleeper = sleeper }
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

    /// Stops the alarm; returns whether it had already rung.
    func disarm() -> Bool {
        let (rang, timer, sleeper) = state.withLock { state in
            state.disarmed = true
            return (state.rang, state.timer, state.sleeper)
        }
        if let timer { DeadlineScheduler.shared.cancel(timer) }
        sleeper?.cancel()
        return rang
    }
}

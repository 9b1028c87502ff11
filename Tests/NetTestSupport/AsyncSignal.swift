import Synchronization

/// A one-shot event tasks can wait for: `fire()` releases every waiter, present and future.
/// Tests use it to order steps by what happened ("the refresh started") instead of by sleeping.
package final class AsyncSignal: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Creates an unfired signal.
    package init() {}

    /// Fires the signal; later calls do nothing.
    package func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state = (true, []) }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the signal has fired.
    package func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let firedAlready = state.withLock { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if firedAlready { continuation.resume() }
        }
    }
}

import Synchronization
#if canImport(NetTestSupport)
import NetTestSupport  // TestTiming
#endif

/// Releases a held response after ``TransportStreaming/hang`` unless cancelled first: a transport
/// that waited for the whole body would otherwise wait forever. ``fired`` tells a check that the
/// hold had to be released for it to go on, which is the failure it looks for; read after
/// ``cancel()``, it cannot change any more.
final class HoldWatchdog: Sendable {
    /// Decided under one lock: the watchdog fires only if not cancelled first.
    private let state = Mutex((cancelled: false, fired: false))
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(releasing key: String) {
        task.withLock {
            $0 = Task { [self] in
                try? await Task.sleep(for: TransportStreaming.hang)
                let fires = state.withLock { state in
                    if !state.cancelled { state.fired = true }
                    return state.fired
                }
                if fires { FaultServer.shared.release(key) }
            }
        }
    }

    var fired: Bool { state.withLock { $0.fired } }

    func cancel() {
        state.withLock { $0.cancelled = true }
        task.withLock { $0?.cancel() }
    }
}

#if os(Linux)
import CNetlink
import Glibc
import Synchronization

/// An `eventfd` that wakes the monitor thread. Shared by the thread and its owner and closed only
/// when both have let go, so a late `signal()` can never write into a reused descriptor number.
final class WakeSignal: Sendable {
    let descriptor: Int32

    init() throws {
        descriptor = eventfd(0, CNL_EFD_CLOEXEC)
        guard descriptor >= 0 else { throw ReachabilityError.systemCall("eventfd", errno: errno) }
    }

    func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    deinit { close(descriptor) }
}

/// The body of the monitor thread: blocks in `poll()` on the event socket and the wake signal
/// (no timers while idle), debounces bursts, re-dumps, and yields only real changes.
final class ReachabilityMonitor: Sendable {
    let eventSocket: Int32
    let dumpSocket: Int32
    let wake: WakeSignal
    let debounce: Duration
    let classifier: LinkClassifier
    let continuation: AsyncThrowingStream<NetworkPath, any Error>.Continuation
    let initialPath: NetworkPath
    /// The thread's id once it runs (for tests: no public use).
    let threadID = Mutex<Int32?>(nil)

    init(
        eventSocket: Int32, dumpSocket: Int32, wake: WakeSignal, debounce: Duration, classifier: LinkClassifier,
        continuation: AsyncThrowingStream<NetworkPath, any Error>.Continuation, initialPath: NetworkPath
    ) {
        self.eventSocket = eventSocket
        self.dumpSocket = dumpSocket
        self.wake = wake
        self.debounce = debounce
        self.classifier = classifier
        self.continuation = continuation
        self.initialPath = initialPath
    }

    func run() {
        threadID.withLock { $0 = cnl_thread_id() }
        let failure = loop()
        close(eventSocket)
        close(dumpSocket)
        continuation.finish(throwing: failure)
    }

    /// Returns `nil` when asked to stop, or the error that ended monitoring.
    private func loop() -> (any Error)? {
        let clock = ContinuousClock()
        var last = initialPath
        var deadline: ContinuousClock.Instant?
        var descriptors = [
            pollfd(fd: eventSocket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let timeout = deadline.map { Self.milliseconds(until: $0, clock: clock) } ?? -1
            if poll(&descriptors, nfds_t(descriptors.count), timeout) < 0 {
                if errno == EINTR { continue }
                return ReachabilityError.systemCall("poll", errno: errno)
            }
            if descriptors[1].revents != 0 { return nil }
            do {
                if descriptors[0].revents != 0, try NetlinkSocket.drainEvents(eventSocket) == .changed, deadline == nil {
                    deadline = clock.now.advanced(by: debounce)
                }
                if let due = deadline, clock.now >= due {
                    deadline = nil
                    let path = PathDerivation.path(from: try NetlinkSocket.snapshot(dumpSocket), kindOf: classifier.kind)
                    if path != last {
                        last = path
                        continuation.yield(path)
                    }
                }
            } catch {
                return error
            }
        }
    }

    /// Rounded up, so the thread never wakes just before the deadline and spins.
    private static func milliseconds(until deadline: ContinuousClock.Instant, clock: ContinuousClock) -> Int32 {
        let remaining = clock.now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        // poll(2) waits at most Int32.max ms (24.8 days); the loop polls again until the deadline.
        guard remaining < .milliseconds(Int32.max) else { return Int32.max }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}
#endif

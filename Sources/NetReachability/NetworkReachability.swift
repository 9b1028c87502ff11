#if os(Linux)
import CNetlink
import Glibc
import Synchronization

/// Watches this machine's network through Linux rtnetlink: no Foundation, no polling.
///
/// ```swift
/// let reachability = try NetworkReachability()
/// for try await path in try reachability.startNotifier() {
///     print("Connection type: \(path.connection.rawValue)")   // first element: the current state
/// }
/// ```
///
/// The stream's first element is the current path; after that it yields one element per real
/// change. Kernel events are treated as hints (the kernel sends none for some changes that matter),
/// so after a burst settles for `debounce` the monitor re-reads the whole state and yields only if
/// the derived path changed. Ending the iteration, dropping the stream or calling
/// ``stopNotifier()`` releases the monitor's thread and descriptors.
public final class NetworkReachability: Sendable {
    /// The kind of link a path or interface uses.
    public enum Connection: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// No usable interface.
        case unavailable
        /// Wi-Fi (sysfs reports a wireless device).
        case wifi
        /// A cellular modem (sysfs reports a WWAN device); metered.
        case cellular
        /// Wired Ethernet.
        case ethernet
        /// Anything else: virtual links such as veth, bridges, tunnels, WireGuard.
        case other

        /// The raw value.
        public var description: String { rawValue }
    }

    /// How long a burst of kernel events must settle before the state is re-read.
    public let debounce: Duration
    /// What the event socket's queue asks for, in bytes (smaller only in tests, to make it overflow).
    private let eventReceiveBuffer: Int32
    private let classifier = LinkClassifier()
    private let running = Mutex<RunningMonitor?>(nil)

    private struct RunningMonitor: Sendable {
        let thread: pthread_t
        let wake: WakeSignal
        let monitor: ReachabilityMonitor
    }

    /// The running notifier's thread id (as `/proc/self/task` lists it) once its thread runs (for
    /// tests: no public use).
    package var notifierThreadID: Int32? {
        running.withLock { $0?.monitor.threadID.withLock { $0 } }
    }

    /// Creates a monitor; throws ``ReachabilityError`` if rtnetlink is not available.
    ///
    /// - Parameter debounce: how long kernel events must settle before the state is re-read
    ///   (a burst then gives one element); 50 ms by default, from zero to a day.
    public convenience init(debounce: Duration = .milliseconds(50)) throws {
        try self.init(debounce: debounce, eventReceiveBuffer: NetlinkSocket.eventReceiveBuffer)
    }

    /// A monitor whose event socket asks for `eventReceiveBuffer` bytes of queue (for tests: a
    /// small one overflows in a burst, as the default one does in a longer burst).
    package init(debounce: Duration, eventReceiveBuffer: Int32) throws {
        guard debounce >= .zero, debounce <= Self.longestDebounce else { throw ReachabilityError.invalidDebounce(debounce) }
        self.debounce = debounce
        self.eventReceiveBuffer = eventReceiveBuffer
        close(try NetlinkSocket.open(groups: 0))
    }

    /// The longest debounce: a day, far inside what the monitor's clock arithmetic holds.
    public static let longestDebounce = Duration.seconds(86_400)

    deinit { stopNotifier() }

    /// Reads the current path now, without starting a notifier.
    public func currentPath() throws -> NetworkPath {
        let descriptor = try NetlinkSocket.open(groups: 0)
        defer { close(descriptor) }
        return PathDerivation.path(from: try NetlinkSocket.snapshot(descriptor), kindOf: classifier.kind)
    }

    /// The current connection kind, read now.
    public var connection: Connection {
        get throws { try currentPath().connection }
    }

    /// Starts monitoring; the stream's first element is the current path.
    ///
    /// Throws ``ReachabilityError/alreadyRunning`` if a notifier is running.
    public func startNotifier() throws -> AsyncThrowingStream<NetworkPath, any Error> {
        try running.withLock { running in
            guard running == nil else { throw ReachabilityError.alreadyRunning }
            // Subscribe before the first dump, so no change between the two is missed.
            let eventSocket = try NetlinkSocket.open(groups: NetlinkSocket.eventGroups, receiveBuffer: eventReceiveBuffer)
            var descriptors = [eventSocket]
            do {
                let dumpSocket = try NetlinkSocket.open(groups: 0)
                descriptors.append(dumpSocket)
                let wake = try WakeSignal()
                let initial = PathDerivation.path(from: try NetlinkSocket.snapshot(dumpSocket), kindOf: classifier.kind)
                let (stream, continuation) = AsyncThrowingStream.makeStream(
                    of: NetworkPath.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(1))
                continuation.yield(initial)
                // Keeps `self` alive while the stream is; ending the stream stops the thread.
                continuation.onTermination = { _ in self.stopNotifier() }
                let monitor = ReachabilityMonitor(
                    eventSocket: eventSocket, dumpSocket: dumpSocket, wake: wake, debounce: debounce,
                    classifier: classifier, continuation: continuation, initialPath: initial)
                let thread = try Self.startThread(running: monitor)
                running = RunningMonitor(thread: thread, wake: wake, monitor: monitor)
                return stream
            } catch {
                descriptors.forEach { close($0) }
                throw error
            }
        }
    }

    /// Stops the notifier: its stream finishes, and its thread and descriptors are released
    /// before this returns. Does nothing if no notifier is running.
    public func stopNotifier() {
        guard let monitor = running.withLock({ running in defer { running = nil }; return running }) else { return }
        monitor.wake.signal()
        if pthread_equal(monitor.thread, pthread_self()) != 0 {
            // Called from the monitor thread itself, as it finishes the stream: it is about to
            // return, and a thread cannot join itself.
            pthread_detach(monitor.thread)
        } else {
            pthread_join(monitor.thread, nil)
        }
    }

    /// A dedicated thread: `poll()` blocks, which must never happen on Swift's cooperative pool.
    private static func startThread(running monitor: ReachabilityMonitor) throws -> pthread_t {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(monitor).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            _ = cnl_set_thread_name("NetReachability")  // shows in top -H, gdb, /proc
            Unmanaged<ReachabilityMonitor>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<ReachabilityMonitor>.fromOpaque(context).release()
            monitor.continuation.onTermination = nil
            monitor.continuation.finish()
            throw ReachabilityError.systemCall("pthread_create", errno: result)
        }
        return thread
    }
}
#endif

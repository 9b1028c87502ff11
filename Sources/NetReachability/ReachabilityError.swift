#if os(Linux)
import Glibc

/// Why the reachability monitor could not start or stopped.
public enum ReachabilityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed; names it with its `errno`.
    case systemCall(String, errno: Int32)
    /// The kernel answered a request with an error (a negative errno).
    case kernel(errno: Int32)
    /// The kernel's answer ended in malformed bytes.
    case malformedReply
    /// `startNotifier()` was called while a notifier is running; call `stopNotifier()` first.
    case alreadyRunning
    /// A debounce below zero or above ``NetworkReachability/longestDebounce`` was given.
    case invalidDebounce(Duration)

    /// Names the call and the system's message.
    public var description: String {
        switch self {
        case .systemCall(let call, let code): "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .kernel(let code): "the kernel refused a netlink request: \(String(cString: strerror(code))) (errno \(code))"
        case .malformedReply: "the kernel's netlink reply was malformed"
        case .alreadyRunning: "the notifier is already running; call stopNotifier() first"
        case .invalidDebounce(let debounce): "the debounce must be from zero to a day, not \(debounce)"
        }
    }
}
#endif

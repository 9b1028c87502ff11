import Synchronization

/// A value behind a mutex, shareable between threads.
public final class Protected<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// Wraps `value`.
    public init(_ value: Value) { mutex = Mutex(value) }

    /// Runs `body` with the value locked.
    public func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try mutex.withLock(body)
    }
}

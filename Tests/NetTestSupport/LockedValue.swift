import Synchronization

/// A value behind a lock that escaping closures can share (a `Mutex` itself cannot be captured).
package final class LockedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// Holds `value`.
    package init(_ value: Value) { mutex = Mutex(value) }

    /// The value now.
    package var value: Value { mutex.withLock { $0 } }

    /// Changes the value under the lock and returns what `body` returns.
    @discardableResult
    package func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}

#if canImport(Darwin)
import os
#else
import Synchronization
#endif

/// A value behind a lock, shareable between threads: the one primitive the transport's
/// callback-driven parts (URLSession delegate, stub bookkeeping) need.
///
/// `Mutex` needs macOS 15, so Apple platforms use `OSAllocatedUnfairLock` (macOS 13) instead.
package final class Locked<Value: Sendable>: Sendable {
    #if canImport(Darwin)
    private let lock: OSAllocatedUnfairLock<Value>
    #else
    private let lock: Mutex<Value>
    #endif

    package init(_ value: Value) {
        #if canImport(Darwin)
        lock = OSAllocatedUnfairLock(initialState: value)
        #else
        lock = Mutex(value)
        #endif
    }

    /// Runs `body` with exclusive access to the value; keep it short and never await inside.
    package func withLock<Result: Sendable, Failure: Error>(
        _ body: @Sendable (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        #if canImport(Darwin)
        // OSAllocatedUnfairLock only rethrows untyped errors; recover the typed one.
        do {
            return try lock.withLock { state in
                do { return Outcome<Result, Failure>.value(try body(&state)) } catch { return .failure(error) }
            }.get()
        }
        #else
        return try lock.withLock { (state: inout sending Value) throws(Failure) -> sending Result in
            try body(&state)
        }
        #endif
    }
}

#if canImport(Darwin)
private enum Outcome<Value: Sendable, Failure: Error>: Sendable {
    case value(Value)
    case failure(Failure)

    func get() throws(Failure) -> Value {
        switch self {
        case .value(let value): return value
        case .failure(let error): throw error
        }
    }
}
#endif

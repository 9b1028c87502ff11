#if canImport(Darwin)
import os
#else
import Synchronization
#endif

/// A value behind a lock, shareable between threads: the one primitive the transport's
/// callback-driven parts (URLSession delegate, stub bookkeeping) need.
///
/// A noncopyable value stored inline in the object that shares it, not an object of its own: a
/// generic class's deinit looks up its field's generic metadata at run time (a hash-map probe per
/// object; several objects per call hold one), and each would cost an allocation besides.
///
/// `Mutex` needs macOS 15, so Apple platforms use `OSAllocatedUnfairLock` (macOS 13) instead.
///
/// Public behind an SPI (`@_spi(NetInternals) import NetTransport`), for Net's own modules, not
/// `package`: in a two-module package built in release with Swift 6.3.1, an `@inlinable`
/// `package` function was not inlined into the other module (a `public` one was), so `withLock`
/// ran unspecialized there, looking up the generic metadata of its value and result types on
/// every call (AsyncHTTPClient's delegate takes the lock six times per request).
@_spi(NetInternals)
public struct Locked<Value: Sendable>: ~Copyable, Sendable {
    #if canImport(Darwin)
    @usableFromInline let lock: OSAllocatedUnfairLock<Value>
    #else
    @usableFromInline let lock: Mutex<Value>
    #endif

    /// Consuming: the value is moved in, not copied.
    @inlinable
    public init(_ value: consuming Value) {
        #if canImport(Darwin)
        lock = OSAllocatedUnfairLock(initialState: value)
        #else
        lock = Mutex(value)
        #endif
    }

    /// Runs `body` with exclusive access to the value; keep it short and never await inside.
    @inlinable
    public borrowing func withLock<Result: Sendable, Failure: Error>(
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
@usableFromInline enum Outcome<Value: Sendable, Failure: Error>: Sendable {
    case value(Value)
    case failure(Failure)

    @usableFromInline func get() throws(Failure) -> Value {
        switch self {
        case .value(let value): return value
        case .failure(let error): throw error
        }
    }
}
#endif

/// A ``Locked`` value shared by reference, for holders that are values themselves (a transport
/// struct whose copies share one table). Not for objects made per call: see ``Locked``.
package final class LockedBox<Value: Sendable>: Sendable {
    private let locked: Locked<Value>

    /// Consuming: the value is moved in, not copied.
    package init(_ value: consuming Value) { locked = Locked(value) }

    /// Runs `body` with exclusive access to the value; keep it short and never await inside.
    package func withLock<Result: Sendable, Failure: Error>(
        _ body: @Sendable (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try locked.withLock(body)
    }
}

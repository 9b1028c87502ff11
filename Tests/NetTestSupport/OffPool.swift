import Foundation

/// Runs blocking or CPU-heavy test work (a child process, a parser chewing megabytes, a scan of the
/// kernel's socket table) on a thread of its own and awaits its result.
///
/// Swift's cooperative pool has as many threads as cores: two here. Work that holds one for
/// seconds stalls every other async test in the process, and then unrelated timing checks fail
/// (a canary task sleeping 20 ms woke 4.7 s late while a multipart-kit parse and a /proc/net/tcp
/// scan ran on the pool). `DispatchQueue.global()` is no way out on Linux: it is the same pool.
package func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// ``offPool(_:)`` for work that cannot fail.
package func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}

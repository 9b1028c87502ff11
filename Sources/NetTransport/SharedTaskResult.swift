import Foundation

/// One task's result, for any number of callers to wait for, each of whom stops waiting as soon as
/// its own task is cancelled. A `Task`'s own `value` waits for the task whatever happens to the
/// waiter, so a caller that gave up (its call's deadline, its own cancellation) would stay until
/// the task ended, however long that takes. The task itself goes on: others may still want its
/// result. One watcher per task, not per waiter, so callers that leave keep nothing behind.
final class SharedTaskResult<Success: Sendable>: Sendable {
    private struct State: Sendable {
        var result: Result<Success, any Error>?
        var waiters: [Int: CheckedContinuation<Success, any Error>] = [:]
        /// Waiters cancelled before they were in `waiters`.
        var cancelledEarly: Set<Int> = []
        var nextID = 0
    }

    private let state = Locked(State())

    /// Starts watching `task`; its result goes to every waiter, present and future.
    init(_ task: Task<Success, any Error>) {
        Task { self.finish(await task.result) }
    }

    /// The task's result, or `CancellationError` once the calling task is cancelled.
    func value() async throws -> Success {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Success, any Error>) in
                let ready = state.withLock { state -> Result<Success, any Error>? in
                    if let result = state.result { return result }
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            leave(id)
        }
    }

    private func leave(_ id: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Success, any Error>? in
            guard state.result == nil else { return nil }
            guard let continuation = state.waiters.removeValue(forKey: id) else {
                state.cancelledEarly.insert(id)
                return nil
            }
            return continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    private func finish(_ result: Result<Success, any Error>) {
        let waiters = state.withLock { state in
            state.result = result
            state.cancelledEarly = []
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume(with: result) }
    }
}

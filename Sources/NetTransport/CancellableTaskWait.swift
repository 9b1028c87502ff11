import Foundation

/// `task`'s value, or `CancellationError` as soon as the waiting task is cancelled. A `Task`'s own
/// `value` waits for the task whatever happens to its waiter, so a caller that gave up (its call's
/// deadline, its own cancellation) would stay until the task ended, however long that takes.
/// The task itself goes on: others may still want its value.
func valueUnlessCancelled<Success: Sendable>(of task: Task<Success, any Error>) async throws -> Success {
    let waiter = SingleResumption<Success>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            waiter.install(continuation)
            Task { waiter.resume(with: await task.result) }
        }
    } onCancel: {
        waiter.resume(with: .failure(CancellationError()))
    }
}

/// A continuation resumed once, by whichever of its results comes first; a result that comes
/// before the continuation is installed waits for it.
private final class SingleResumption<Success: Sendable>: Sendable {
    private struct State: Sendable {
        var continuation: CheckedContinuation<Success, any Error>?
        var early: Result<Success, any Error>?
        var resumed = false
    }

    private let state = Locked(State())

    func install(_ continuation: CheckedContinuation<Success, any Error>) {
        let early = state.withLock { state -> Result<Success, any Error>? in
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            state.resumed = true
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(with result: Result<Success, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Success, any Error>? in
            guard !state.resumed else { return nil }
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = result }
                return nil
            }
            state.resumed = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }
}

import Foundation

/// One task's result, for any number of callers to wait for, each of whom stops waiting as soon as
/// its own task is cancelled. A `Task`'s own `value` waits for the task whatever happens to the
/// waiter, so a caller that gave up (its call's deadline, its own cancellation) would stay until
/// the task ended, however long that takes. One watcher per task, not per waiter, so callers that
/// leave keep nothing behind.
///
/// The task goes on when its waiters leave (a credential refresh: later calls want its result),
/// unless the result was made with `cancelsWhenAbandoned` (a shared exchange: nobody else would
/// read it), in which case the task is cancelled once every caller that joined has left, and no
/// one may join after that until the result is in.
final class SharedTaskResult<Success: Sendable>: Sendable {
    private struct State: Sendable {
        var task: Task<Success, any Error>?
        var result: Result<Success, any Error>?
        var waiters: [Int: CheckedContinuation<Success, any Error>] = [:]
        /// Callers that left before they were in `waiters`; each removes itself on arriving there.
        var leftEarly: Set<Int> = []
        var nextID = 0
        /// Callers joined and neither answered nor gone.
        var waiting = 0
        var isAbandoned: Bool { nextID > 0 && waiting == 0 && result == nil }
    }

    private let state = Locked(State())
    private let cancelsWhenAbandoned: Bool

    /// A result for `run(_:)` to fill; see the type's description for `cancelsWhenAbandoned`.
    init(cancelsWhenAbandoned: Bool = false) {
        self.cancelsWhenAbandoned = cancelsWhenAbandoned
    }

    /// Watches `task`, already started: its result goes to every waiter, present and future.
    convenience init(_ task: Task<Success, any Error>) {
        self.init()
        run(task)
    }

    /// Starts watching `task`; its result goes to every waiter, present and future. Called once.
    func run(_ task: Task<Success, any Error>) {
        state.withLock { $0.task = task }
        Task { self.finish(await task.result) }
    }

    /// Callers joined and neither answered nor gone.
    var waiting: Int { state.withLock { $0.waiting } }

    /// Registers a caller and returns its id for ``value(_:)``; `nil` when the task was abandoned
    /// (`cancelsWhenAbandoned`, and every caller so far has left before the result came).
    func join() -> Int? {
        state.withLock { state in
            if cancelsWhenAbandoned, state.isAbandoned { return nil }
            defer { state.nextID += 1 }
            state.waiting += 1
            return state.nextID
        }
    }

    /// Joins and waits: the task's result, or `CancellationError` once the calling task is
    /// cancelled or when the task was abandoned (``join()``).
    func value() async throws -> Success {
        guard let id = join() else { throw CancellationError() }
        return try await value(id)
    }

    /// The task's result for caller `id` (from ``join()``), or `CancellationError` once the
    /// calling task is cancelled.
    func value(_ id: Int) async throws -> Success {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Success, any Error>) in
                let ready = state.withLock { state -> Result<Success, any Error>? in
                    if state.leftEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if let result = state.result {
                        state.waiting -= 1
                        return result
                    }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            leave(id)
        }
    }

    /// Caller `id` is gone: it gets `CancellationError`, and with `cancelsWhenAbandoned` the task
    /// is cancelled when no caller is left.
    private func leave(_ id: Int) {
        let (continuation, abandoned) = state.withLock { state -> (CheckedContinuation<Success, any Error>?, Task<Success, any Error>?) in
            guard state.result == nil else { return (nil, nil) }
            state.waiting -= 1
            let continuation = state.waiters.removeValue(forKey: id)
            if continuation == nil { state.leftEarly.insert(id) }
            return (continuation, cancelsWhenAbandoned && state.isAbandoned ? state.task : nil)
        }
        continuation?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }

    private func finish(_ result: Result<Success, any Error>) {
        let waiters = state.withLock { state in
            state.result = result
            state.waiting -= state.waiters.count
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume(with: result) }
    }
}

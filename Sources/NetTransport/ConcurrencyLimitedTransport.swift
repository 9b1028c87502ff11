import NetCore

/// The pipeline stage that lets at most a fixed number of exchanges through to another transport
/// at once; the rest wait in arrival order. An exchange holds its permit until its body ends, fails
/// or is dropped, so a streamed response counts while it is being read. A waiting request whose
/// task is cancelled leaves the queue at once with `CancellationError`.
public struct ConcurrencyLimitedTransport: Transport {
    /// The transport requests go through.
    public let base: any Transport
    /// The most exchanges on `base` at once.
    public let maximumConcurrentRequests: Int
    private let permits: Permits

    /// Wraps `base`; a limit below one is treated as one.
    public init(_ base: any Transport, maximumConcurrentRequests: Int) {
        self.base = base
        self.maximumConcurrentRequests = max(1, maximumConcurrentRequests)
        self.permits = Permits(count: max(1, maximumConcurrentRequests))
    }

    /// Waits for a free slot, then sends through ``base``; the slot is freed when the body ends.
    public func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        try await permits.acquire()
        ExchangeMetricsRecorder.current?.reached(.queued)
        do {
            var response = try await base.exchange(request, progress: progress)
            let permits = permits
            response.body = response.body.onEnd { permits.release() }
            return response
        } catch {
            permits.release()
            throw error
        }
    }

    /// ``base``'s limits.
    public var responseLimits: ResponseLimits { base.responseLimits }

    /// How many requests are waiting for a slot (for tests: the queue is otherwise unobservable).
    package var waitingCount: Int { permits.waitingCount }
}

/// A counting semaphore for tasks, first come first served; `release` never waits.
final class Permits: Sendable {
    private struct State: Sendable {
        var available: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
        /// Waiters between taking their number and joining the line, each with whether it was
        /// cancelled meanwhile; a waiter leaves it when it joins, so a cancel that comes after
        /// (once the permit is granted) leaves nothing behind.
        var joining: [UInt64: Bool] = [:]
    }

    private let state: Locked<State>

    init(count: Int) { state = Locked(State(available: count)) }

    func acquire() async throws {
        try Task.checkCancellation()
        let immediate = state.withLock { state -> Bool in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if immediate { return }
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.joining[state.nextID] = false
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Bool? in
                    if state.joining.removeValue(forKey: id) == true { return false }
                    // A permit freed meanwhile is taken at once (the line is then empty).
                    if state.available > 0 {
                        state.available -= 1
                        return true
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    if state.joining[id] != nil { state.joining[id] = true }
                    return nil
                }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// How many tasks are waiting in line.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// How many tasks have a number and have not joined the line yet (for tests: after every
    /// acquire has ended it must be 0, however their cancels fell).
    var joiningCount: Int { state.withLock { $0.joining.count } }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiters.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}

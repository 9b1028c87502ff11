import NetCore

/// A ``Transport`` that lets at most a fixed number of requests through to another transport at
/// once; the rest wait in arrival order. A waiting request whose task is cancelled leaves the
/// queue at once with `CancellationError`.
public struct ConcurrencyLimitedTransport: Transport {
    /// The transport requests go through.
    public let base: any Transport
    /// The most requests on `base` at once.
    public let maximumConcurrentRequests: Int
    private let permits: Permits

    /// Wraps `base`; a limit below one is treated as one.
    public init(_ base: any Transport, maximumConcurrentRequests: Int) {
        self.base = base
        self.maximumConcurrentRequests = max(1, maximumConcurrentRequests)
        self.permits = Permits(count: max(1, maximumConcurrentRequests))
    }

    /// Waits for a free slot, then sends through ``base``.
    public func send(
        _ request: NetworkRequest, to destination: TransportBodyDestination, progress: TransportProgressHandler?
    ) async throws -> TransportResponse {
        try await permits.acquire()
        do {
            let response = try await base.send(request, to: destination, progress: progress)
            await permits.release()
            return response
        } catch {
            await permits.release()
            throw error
        }
    }
}

/// A counting semaphore for tasks, first come first served.
actor Permits {
    private var available: Int
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID: UInt64 = 0

    init(count: Int) { available = count }

    func acquire() async throws {
        try Task.checkCancellation()
        if available > 0 {
            available -= 1
            return
        }
        let id = nextID
        nextID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Runs on this actor; a cancellation that came first is seen here, one that comes
                // later reaches `cancelWaiter` after this closure has queued the waiter.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().continuation.resume()
        }
    }

    private func cancelWaiter(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}

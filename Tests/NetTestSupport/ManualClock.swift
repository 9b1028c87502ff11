import Synchronization
import Testing

/// A clock that moves only when a test says so, for checking deadlines, backoff, refresh windows
/// and cache freshness by events instead of by sleeping: the code under test sleeps on it, the test
/// waits until it is asleep (``sleepers(atLeast:)``), then ``advance(by:)``.
package final class ManualClock: Clock, Sendable {
    /// A point on the manual clock: the time advanced since it was made.
    package struct Instant: InstantProtocol {
        package var offset: Duration
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID = 0
        var cancelled: Set<Int> = []
        var sleepsStarted = 0
    }

    private let state = Mutex(State())

    package init() {}

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .zero }

    /// How many sleeps have started on this clock so far.
    package var sleepsStarted: Int { state.withLock { $0.sleepsStarted } }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Bool? in
                    state.sleepsStarted += 1
                    if state.cancelled.remove(id) != nil { return false }
                    if deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// How long each sleep still waiting has left, shortest first.
    package var pendingDelays: [Duration] {
        state.withLock { state in state.sleepers.map { state.now.duration(to: $0.deadline) }.sorted() }
    }

    /// Moves the clock forward and wakes every sleep whose deadline has come.
    package func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Waits until at least `count` sleeps have started on the clock (the event a test advances
    /// on); records an issue if they have not within ``TestTiming/hangGuard``: a sleep that never
    /// starts fails the test rather than hanging it.
    package func sleeps(atLeast count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        // Sleeps between looks, not yields: a yield loop keeps a core busy (see `eventually`).
        let started = await eventually(within: TestTiming.hangGuard) { sleepsStarted >= count }
        if !started {
            Issue.record("\(sleepsStarted) sleeps started on the manual clock, not \(count)", sourceLocation: sourceLocation)
        }
    }
}

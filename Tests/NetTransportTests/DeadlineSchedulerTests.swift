import Foundation
import NetTestSupport
import Testing
@_spi(NetInternals) @testable import NetTransport

/// The process's deadline thread: what it keeps of deadlines that are over.
@Suite struct DeadlineSchedulerTests {
    /// Counts the deadlines that passed.
    private final class Probe: DeadlineAction {
        let passed = Locked(0)
        func deadlinePassed() { passed.withLock { $0 += 1 } }
    }

    @Test("one long deadline beside many short calls: the cancelled ones behind it are not kept")
    func cancelledEntriesBehindALiveOneAreSwept() {
        let scheduler = DeadlineScheduler()
        let probe = Probe()
        // A long call (a big download under a long timeout) holds the earliest deadline...
        let long = scheduler.schedule(after: .seconds(3_600), probe)
        // ...while many calls with a later deadline start and end beside it.
        for _ in 0..<10_000 {
            scheduler.cancel(scheduler.schedule(after: .seconds(7_200), probe))
        }
        // Without a sweep every one of them stayed behind it until the long one ended.
        #expect(scheduler.entriesHeld <= 2 * 1 + 64)
        scheduler.cancel(long)
        #expect(scheduler.entriesHeld == 0)
        #expect(probe.passed.withLock { $0 } == 0)
    }

    @Test("a deadline still passes after the cancelled ones around it were swept")
    func aLiveDeadlinePassesAfterASweep() async {
        let scheduler = DeadlineScheduler()
        let (soon, later) = (Probe(), Probe())
        _ = scheduler.schedule(after: .seconds(3_600), later)  // keeps the cancelled ones from leaving by the top
        _ = scheduler.schedule(after: .milliseconds(100), soon)
        for _ in 0..<10_000 {
            scheduler.cancel(scheduler.schedule(after: .seconds(7_200), later))
        }
        #expect(scheduler.entriesHeld <= 2 * 2 + 64)  // swept
        // A bound for a hang only: the deadline is 0.1 s away.
        #expect(await eventually(within: TestTiming.scaled(.seconds(30))) { soon.passed.withLock { $0 } == 1 })
        #expect(later.passed.withLock { $0 } == 0)
    }

    @Test("live deadlines survive a sweep and still come in order")
    func liveDeadlinesSurviveASweep() {
        let scheduler = DeadlineScheduler()
        let probe = Probe()
        let live = (0..<100).map { scheduler.schedule(after: .seconds(3_600 + $0), probe) }
        for _ in 0..<10_000 {
            scheduler.cancel(scheduler.schedule(after: .seconds(7_200), probe))
        }
        #expect(scheduler.entriesHeld <= 2 * live.count + 64)
        #expect(scheduler.entriesHeld >= live.count)
        #expect(scheduler.earliestDeadlinesAreInOrder)
        live.forEach(scheduler.cancel)
        #expect(scheduler.entriesHeld == 0)
    }

    @Test("an identifier of a deadline that is over does not cancel the one that reuses its slot")
    func aStaleIdentifierCancelsNothing() async {
        let scheduler = DeadlineScheduler()
        let (first, second) = (Probe(), Probe())
        let passed = scheduler.schedule(after: .zero, first)
        // A bound for a hang only: the deadline has passed already.
        #expect(await eventually(within: TestTiming.scaled(.seconds(30))) { first.passed.withLock { $0 } == 1 })
        let cancelled = scheduler.schedule(after: .seconds(3_600), second)
        scheduler.cancel(cancelled)
        // The one slot is free again; the next deadline takes it, under a third generation.
        let live = scheduler.schedule(after: .seconds(3_600), second)
        scheduler.cancel(passed)
        scheduler.cancel(cancelled)
        scheduler.cancel(cancelled)
        #expect(scheduler.liveDeadlines == 1)
        #expect(scheduler.entriesHeld >= 1)
        scheduler.cancel(live)
        #expect(scheduler.liveDeadlines == 0)
        #expect(scheduler.entriesHeld == 0)
        scheduler.cancel(live)  // over: changes nothing
        #expect(scheduler.liveDeadlines == 0)
        #expect(second.passed.withLock { $0 } == 0)
        #expect(first.passed.withLock { $0 } == 1)
    }
}

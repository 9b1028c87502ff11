import Foundation
import NetCore

/// Runs actions at deadlines, from one thread for the whole process.
///
/// Request deadlines must fire even when Swift's cooperative pool is saturated, so they cannot be
/// `Task.sleep`s; and they must cost nothing once the request is over, so they cannot be
/// `DispatchQueue.asyncAfter` blocks, which stay allocated until their deadline: 100,000 requests
/// under the 60 s default timeout held about 60 MB of them. Here a cancelled deadline's action is
/// dropped at once and its 16-byte entry soon after (see `cancel`), and the thread sleeps
/// until the earliest live one.
final class DeadlineScheduler: Sendable {
    /// The process's scheduler; its thread starts with the first deadline.
    static let shared = DeadlineScheduler()

    /// A deadline's action, in a slot of its own until it is cancelled or passes; the slot is then
    /// reused, under a new generation, so that an old identifier no longer names it.
    ///
    /// Slots, not a dictionary keyed by identifier: every call sets one deadline and cancels it,
    /// and hashing the key for the insert, the removal and each look at the earliest entry took
    /// setting and cancelling a deadline from about 1,500 instructions to 2,300 per call
    /// (valgrind's callgrind, Benchmarks/NOTEBOOK.md, "instruction counts per call").
    private struct Slot: Sendable {
        var action: (any DeadlineAction)?
        var generation: UInt32 = 0
    }

    private typealias Entry = DeadlineQueue.Entry

    private struct State: Sendable {
        var slots: [Slot] = []
        /// Slots whose deadline is over, to reuse: the slots grow to the most deadlines live at once.
        var freeSlots: [Int] = []
        var liveCount = 0
        /// The deadlines, earliest first; entries whose deadline was cancelled are dropped lazily.
        var entries = DeadlineQueue()
        var threadStarted = false
        /// When the thread will next look at the entries by itself: `.max` while it waits for work,
        /// `0` while it is awake. A deadline later than this needs no wake-up, so a steady stream
        /// of requests with one timeout never wakes the thread early.
        var sleepingUntil: UInt64 = 0

        /// Whether `entry`'s deadline is still live: its slot has not been freed since.
        func isLive(_ entry: Entry) -> Bool { Self.isLive(entry, in: slots) }

        static func isLive(_ entry: Entry, in slots: [Slot]) -> Bool {
            slots[Int(entry.slot)].generation == entry.generation
        }

        /// Takes a live deadline's action out of its slot and frees the slot.
        mutating func release(slot: Int) -> (any DeadlineAction)? {
            let action = slots[slot].action
            slots[slot].action = nil
            slots[slot].generation &+= 1
            freeSlots.append(slot)
            liveCount -= 1
            return action
        }
    }

    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Tells `action` on the scheduler's thread once `delay` has passed, unless cancelled first.
    /// Keep the action short: every deadline shares the thread.
    func schedule(after delay: Duration, _ action: some DeadlineAction) -> Int {
        // Saturating: a timeout of 10^11 s means "never", not an overflow trap (and `components`
        // itself traps past `Int64.max` seconds, so the delay is held to the longest wait first).
        let (wholeSeconds, attoseconds) = delay.heldToLongestWait.components  // once: each is a 128-bit division
        let seconds = UInt64(max(0, wholeSeconds)).multipliedReportingOverflow(by: 1_000_000_000)
        let fraction = UInt64(max(0, attoseconds / 1_000_000_000))
        let nanoseconds = seconds.overflow ? UInt64.max : seconds.partialValue.addingReportingOverflow(fraction).partialValue
        let sum = DispatchTime.now().uptimeNanoseconds.addingReportingOverflow(nanoseconds)
        let deadline = sum.overflow ? UInt64.max : sum.partialValue
        let (id, wakesThread, startsThread) = state.withLock { state -> (Int, Bool, Bool) in
            let slot: Int
            if let free = state.freeSlots.popLast() {
                slot = free
            } else {
                slot = state.slots.count
                state.slots.append(Slot())
            }
            state.slots[slot].action = action
            state.liveCount += 1
            // A slot number fits 32 bits: each live deadline holds an object of its own.
            let entry = Entry(deadline: deadline, slot: UInt32(truncatingIfNeeded: slot), generation: state.slots[slot].generation)
            state.entries.insert(entry)
            let startsThread = !state.threadStarted
            state.threadStarted = true
            return (entry.id, deadline < state.sleepingUntil, startsThread)
        }
        if startsThread {
            let thread = Thread { [self] in run() }
            thread.name = "NetTransport deadlines"
            thread.start()
        } else if wakesThread {
            wake.signal()
        }
        return id
    }

    /// Forgets the deadline `id`; its action will not run (unless it is running now). An `id`
    /// whose deadline has passed or was cancelled already changes nothing.
    func cancel(_ id: Int) {
        let slot = id & 0xFFFF_FFFF
        let generation = UInt32(truncatingIfNeeded: id >> 32)
        state.withLock { state in
            guard slot < state.slots.count, state.slots[slot].generation == generation else { return }
            _ = state.release(slot: slot)
            // Deadlines mostly end in the order they were set, so this keeps the queue small.
            while let top = state.entries.first, !state.isLive(top) { state.entries.popFirst() }
            // And from the end: a long deadline cancelled there would send later ones to the heap.
            let slots = state.slots  // a reference, not the state being changed
            state.entries.dropLast { !State.isLive($0, in: slots) }
            // Not when one of them lasts: a long call's deadline at the top keeps every later
            // one cancelled behind it (a download under an hour's timeout, beside thousands of
            // calls a second). Past twice the live ones they are swept at once, which costs
            // each cancel O(1) amortized.
            if state.entries.count > 2 * state.liveCount + 64 { Self.sweep(&state) }
        }
    }

    /// Drops the entries whose deadline was cancelled.
    private static func sweep(_ state: inout State) {
        let slots = state.slots  // not the whole state: that would copy the entries being filtered
        state.entries.filter { State.isLive($0, in: slots) }
    }

    private func run() {
        while true {
            let due = state.withLock { state -> [any DeadlineAction] in
                state.sleepingUntil = 0
                let now = DispatchTime.now().uptimeNanoseconds
                var due: [any DeadlineAction] = []
                while let top = state.entries.first, top.deadline <= now || !state.isLive(top),
                      let entry = state.entries.popFirst() {
                    if state.isLive(entry), let action = state.release(slot: Int(entry.slot)) { due.append(action) }
                }
                return due
            }
            due.forEach { $0.deadlinePassed() }
            // Decided after the actions ran, under the lock that `schedule` takes: a deadline added
            // from here on either is seen now or signals the semaphore.
            let next = state.withLock { state -> UInt64? in
                let next = state.entries.first?.deadline
                state.sleepingUntil = next ?? .max
                return next
            }
            if let next {
                _ = wake.wait(timeout: DispatchTime(uptimeNanoseconds: next))
            } else {
                wake.wait()
            }
        }
    }

    /// Entries held, live or cancelled (for tests).
    var entriesHeld: Int { state.withLock { $0.entries.count } }

    /// Deadlines set and neither passed nor cancelled (for tests).
    var liveDeadlines: Int { state.withLock { $0.liveCount } }

    /// Whether the entries are held in order (for tests).
    var earliestDeadlinesAreInOrder: Bool { state.withLock { $0.entries.isOrdered } }
}

/// What a ``DeadlineScheduler`` entry tells when its deadline passes: an object, so that an entry
/// costs no closure context of its own.
protocol DeadlineAction: AnyObject, Sendable {
    /// Called once, on the scheduler's one thread: keep it short.
    func deadlinePassed()
}

extension DeadlineScheduler {
    /// Sleeps `delay` on the scheduler's thread; cancelling the task drops the deadline at once and
    /// throws `CancellationError`.
    func sleep(for delay: Duration) async throws {
        let waiter = SleepWaiter()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard waiter.store(continuation) else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                waiter.attach(timer: schedule(after: delay, waiter), scheduler: self)
            }
        } onCancel: {
            waiter.cancel(scheduler: self)
        }
    }
}

/// One ``DeadlineScheduler/sleep(for:)``: its continuation and timer, and whether it was cancelled.
private final class SleepWaiter: DeadlineAction {
    private struct State: Sendable {
        var continuation: CheckedContinuation<Void, any Error>?
        var timer: Int?
        var cancelled = false
    }

    private let state = Locked(State())

    /// Keeps the continuation to resume; false if the sleep was cancelled already.
    func store(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.continuation = continuation
            return true
        }
    }

    /// Keeps the timer, to drop it on cancelling; a cancel that came between scheduling and
    /// storing the timer could not drop it, so it is dropped here.
    func attach(timer: Int, scheduler: DeadlineScheduler) {
        let cancelledMeanwhile = state.withLock { state -> Bool in
            state.timer = timer
            return state.cancelled
        }
        if cancelledMeanwhile { scheduler.cancel(timer) }
    }

    func deadlinePassed() {
        state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }?.resume()
    }

    func cancel(scheduler: DeadlineScheduler) {
        let (continuation, timer) = state.withLock { state in
            state.cancelled = true
            defer { state.continuation = nil }
            return (state.continuation, state.timer)
        }
        if let timer { scheduler.cancel(timer) }
        continuation?.resume(throwing: CancellationError())
    }
}

import Testing
@testable import NetTransport

/// The deadline scheduler's queue: deadlines leave earliest first, however they were set.
@Suite struct DeadlineQueueTests {
    /// Deadlines mostly later than the one before, with every fifth earlier (a shorter timeout set
    /// after a longer one), from a fixed linear congruential sequence.
    private func mixedDeadlines(_ count: Int) -> [UInt64] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var latest: UInt64 = 1_000_000
        return (0..<count).map { index in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let step = state >> 48
            if index % 5 == 4 { return latest - min(latest, step) }
            latest += step
            return latest
        }
    }

    /// A queue holding `deadlines`, each in the slot of its position.
    private func filled(with deadlines: [UInt64]) -> DeadlineQueue {
        var queue = DeadlineQueue()
        for (slot, deadline) in deadlines.enumerated() {
            queue.insert(.init(deadline: deadline, slot: UInt32(slot), generation: 0))
        }
        return queue
    }

    /// Takes every entry, earliest first, checking that each taken is the one `first` named (the
    /// scheduler looks at `first` to decide, then takes it).
    private func drain(_ queue: inout DeadlineQueue) -> [UInt64] {
        drainedEntries(&queue).map(\.deadline)
    }

    private func drainedEntries(_ queue: inout DeadlineQueue) -> [DeadlineQueue.Entry] {
        var order: [DeadlineQueue.Entry] = []
        while let first = queue.first {
            let taken = queue.popFirst()
            #expect(taken?.slot == first.slot && taken?.deadline == first.deadline)
            if let taken { order.append(taken) }
        }
        #expect(queue.popFirst() == nil)
        return order
    }

    @Test("deadlines set in and out of order leave earliest first")
    func leaveEarliestFirst() {
        let deadlines = mixedDeadlines(5_000)
        var queue = filled(with: deadlines)
        #expect(queue.count == deadlines.count)
        #expect(queue.isOrdered)
        #expect(drain(&queue) == deadlines.sorted())
        #expect(queue.count == 0)
    }

    @Test("entries leaving and arriving in turn, as calls end and start, leave earliest first each time")
    func interleaved() {
        let deadlines = mixedDeadlines(3_000)
        var queue = DeadlineQueue()
        var held: [UInt64] = []  // what the queue should hold
        for (slot, deadline) in deadlines.enumerated() {
            queue.insert(.init(deadline: deadline, slot: UInt32(slot), generation: 0))
            held.append(deadline)
            // About 64 held, as with 64 calls in flight.
            if held.count > 64 {
                let earliest = held.min()
                #expect(queue.first?.deadline == earliest)
                #expect(queue.popFirst()?.deadline == earliest)
                held.remove(at: held.firstIndex(of: earliest ?? 0) ?? 0)
            }
        }
        #expect(queue.count == held.count)
        #expect(drain(&queue) == held.sorted())
    }

    @Test("a sweep keeps the entries it accepts, in order")
    func filterKeepsOrder() {
        let deadlines = mixedDeadlines(3_000)
        var queue = filled(with: deadlines)
        queue.filter { $0.slot % 3 != 0 }
        #expect(queue.isOrdered)
        #expect(drain(&queue) == deadlines.enumerated().filter { $0.offset % 3 != 0 }.map(\.element).sorted())
    }

    @Test("equal deadlines in the run and the heap: each leaves once, the one first names")
    func ties() {
        var queue = DeadlineQueue()
        // 10 and 20 start the run; 10 again (earlier than 20) goes to the heap; 20 again to the run.
        for (slot, deadline) in [10, 20, 10, 20, 5].enumerated() {
            queue.insert(.init(deadline: UInt64(deadline), slot: UInt32(slot), generation: 0))
        }
        let taken = drainedEntries(&queue)
        #expect(taken.map(\.deadline) == [5, 10, 10, 20, 20])
        #expect(Set(taken.map(\.slot)) == [0, 1, 2, 3, 4])
    }

    @Test("a sweep that empties the run while the heap holds entries: what comes next still leaves in order")
    func filterEmptyingTheRun() {
        var queue = DeadlineQueue()
        for (slot, deadline) in [100, 200, 50, 60].enumerated() {  // 50 and 60 go to the heap
            queue.insert(.init(deadline: UInt64(deadline), slot: UInt32(slot), generation: 0))
        }
        queue.filter { $0.deadline < 100 }  // the run empties; the heap keeps 50 and 60
        for (slot, deadline) in [70, 55, 300].enumerated() {
            queue.insert(.init(deadline: UInt64(deadline), slot: UInt32(10 + slot), generation: 0))
        }
        #expect(queue.isOrdered)
        #expect(drain(&queue) == [50, 55, 60, 70, 300])
    }

    @Test("dead entries at the run's end are dropped, the live ones kept, and later deadlines leave in order")
    func dropLastKeepsTheRunInOrder() {
        var queue = DeadlineQueue()
        for (slot, deadline) in [10, 20, 3_600].enumerated() {  // the last: a long call, ended early
            queue.insert(.init(deadline: UInt64(deadline), slot: UInt32(slot), generation: 0))
        }
        queue.dropLast { $0.slot == 2 }
        queue.dropLast { $0.slot == 2 }  // nothing more to drop: the live ones stay
        for (slot, deadline) in [30, 40].enumerated() {
            queue.insert(.init(deadline: UInt64(deadline), slot: UInt32(3 + slot), generation: 0))
        }
        #expect(queue.count == 4)
        #expect(drain(&queue) == [10, 20, 30, 40])
    }
}

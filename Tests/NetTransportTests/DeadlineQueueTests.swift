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

    private func drain(_ queue: inout DeadlineQueue) -> [UInt64] {
        var order: [UInt64] = []
        while let first = queue.first {
            order.append(first.deadline)
            queue.removeFirst()
        }
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
                queue.removeFirst()
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
}

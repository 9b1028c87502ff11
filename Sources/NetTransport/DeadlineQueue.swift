/// The deadlines a ``DeadlineScheduler`` holds, earliest first: a run of deadlines in the order
/// they were set, beside a binary min-heap for the rest.
///
/// Nearly every deadline is later than the one set before it (calls under one timeout, set as
/// they start), so it goes at the end of the run, and the earliest leaves from its front: no
/// sifting either way. A heap entry and its sift down cost about 400 instructions per call at 64
/// calls in flight (valgrind's callgrind, Benchmarks/NOTEBOOK.md, "Fewer async frames"). A
/// deadline earlier than the run's last (a shorter timeout set after a longer one) goes to the
/// heap; the earliest is the earlier of the two fronts.
struct DeadlineQueue: Sendable {
    /// 16 bytes: the deadline, and the slot with its generation when the deadline was set.
    struct Entry: Sendable {
        let deadline: UInt64
        let slot: UInt32
        let generation: UInt32

        /// The identifier ``DeadlineScheduler/schedule(after:_:)`` returns: the slot and its generation.
        var id: Int { Int(generation) << 32 | Int(slot) }
    }

    /// Deadlines in the order set, each no earlier than the one before; those before `runStart`
    /// have left.
    private var run: [Entry] = []
    /// Where the run's entries still held begin.
    private var runStart = 0
    /// The deadlines that came earlier than the run's last: a binary min-heap.
    private var heap: [Entry] = []

    /// Entries held.
    var count: Int { run.count - runStart + heap.count }

    /// The earliest entry.
    var first: Entry? {
        guard runStart < run.count else { return heap.first }
        guard let top = heap.first else { return run[runStart] }
        return top.deadline < run[runStart].deadline ? top : run[runStart]
    }

    /// Adds `entry`: at the end of the run when it is no earlier than the run's last, to the heap
    /// otherwise.
    mutating func insert(_ entry: Entry) {
        if runStart == run.count {
            // Empty: start the run over, keeping its storage.
            run.removeAll(keepingCapacity: true)
            runStart = 0
        }
        guard let last = run.last, entry.deadline < last.deadline else {
            run.append(entry)
            return
        }
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the earliest entry (the one ``first`` gives) and returns it.
    @discardableResult
    mutating func popFirst() -> Entry? {
        if runStart < run.count, heap.first.map({ $0.deadline >= run[runStart].deadline }) ?? true {
            let entry = run[runStart]
            runStart += 1
            // The run's front is dropped in bulk once it is most of the array: amortized O(1).
            if runStart >= 64, runStart * 2 >= run.count {
                run.removeFirst(runStart)
                runStart = 0
            }
            return entry
        }
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let entry = heap.removeLast()
        Self.siftDown(from: 0, in: &heap)
        return entry
    }

    /// Drops entries from the end of the run while `isDropped` accepts them: a long deadline
    /// cancelled there (a call under a long timeout that ended early) would otherwise send every
    /// shorter one set after it to the heap until it was swept.
    mutating func dropLast(while isDropped: (Entry) -> Bool) {
        while run.count > runStart, let last = run.last, isDropped(last) { run.removeLast() }
    }

    /// Keeps only the entries `isKept` accepts, in order.
    mutating func filter(_ isKept: (Entry) -> Bool) {
        run = run[runStart...].filter(isKept)
        runStart = 0
        heap.removeAll { !isKept($0) }
        for parent in stride(from: heap.count / 2 - 1, through: 0, by: -1) {
            Self.siftDown(from: parent, in: &heap)
        }
    }

    /// Whether the run is in order and the heap a valid min-heap (for tests).
    var isOrdered: Bool {
        let inRun = run[runStart...]
        return zip(inRun, inRun.dropFirst()).allSatisfy { $0.deadline <= $1.deadline }
            && heap.indices.dropFirst().allSatisfy { heap[($0 - 1) / 2].deadline <= heap[$0].deadline }
    }

    /// Moves the entry at `start` down until neither child is earlier.
    private static func siftDown(from start: Int, in heap: inout [Entry]) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

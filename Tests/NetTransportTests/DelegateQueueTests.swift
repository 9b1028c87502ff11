#if canImport(FoundationNetworking)
import Dispatch
import Foundation
@testable import NetTransport
import Testing

/// `DelegateQueue` is URLSessionTransport's backpressure on FoundationNetworking: past its backlog
/// limit the posting thread (libcurl's, in a session) waits until a block has run. Proven by the
/// order of events, with the safety pause lengthened so that only the queue's progress can let a
/// poster through.
@Suite("DelegateQueue: order and backlog")
struct DelegateQueueTests {
    /// Events in the order they happened, from any thread.
    final class EventLog<Entry: Sendable>: Sendable {
        private let entries = Locked<[Entry]>([])
        func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
        var all: [Entry] { entries.withLock { $0 } }
    }

    /// Runs `body` on a thread of its own (it blocks) and returns what it returns.
    private func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    @Test("past 64 waiting blocks the poster waits for room, and goes on past the limit only after the pause; blocks run in order", .timeLimit(.minutes(1)))
    func posterWaitsPastTheLimit() async {
        let log = EventLog<String>()
        let (events, pastLimit) = await offPool { () -> ([String], Int) in
            // A short pause, so that the 64th post comes back while the queue is still held.
            let queue = DelegateQueue(longestWait: .milliseconds(100))
            let gate = DispatchSemaphore(value: 0)
            let posted = DispatchSemaphore(value: 0)
            let ranAll = DispatchSemaphore(value: 0)
            queue.addOperation { gate.wait() }  // holds the queue, and takes one of the 64 places
            Thread {
                for index in 1...64 {
                    queue.addOperation {
                        log.append("ran \(index)")
                        if index == 64 { ranAll.signal() }
                    }
                    log.append("posted \(index)")
                }
                posted.signal()
            }.start()
            posted.wait()
            // Nothing has run yet: the 64th post found no room, waited, and went on past the limit.
            let pastLimit = queue.postsPastLimit
            log.append("gate opened")
            gate.signal()
            ranAll.wait()
            return (log.all, pastLimit)
        }
        #expect(pastLimit == 1)
        #expect(events.prefix(64) == ArraySlice((1...64).map { "posted \($0)" }))
        #expect(events.filter { $0.hasPrefix("ran ") } == (1...64).map { "ran \($0)" })
    }

    @Test("a block posting blocks from the queue itself never waits for the queue it holds", .timeLimit(.minutes(1)))
    func postingFromTheQueueDoesNotWait() async {
        let (ran, pastLimit) = await offPool { () -> ([Int], Int) in
            let queue = DelegateQueue(longestWait: .milliseconds(100))
            let order = EventLog<Int>()
            let done = DispatchSemaphore(value: 0)
            queue.addOperation {
                // Twice the limit, all while this block holds the queue: waiting for room here
                // would wait for this very block.
                for index in 1...128 {
                    queue.addOperation {
                        order.append(index)
                        if index == 128 { done.signal() }
                    }
                }
            }
            done.wait()
            return (order.all, queue.postsPastLimit)
        }
        #expect(ran == Array(1...128))
        #expect(pastLimit == 0)
    }
}
#endif

#if canImport(FoundationNetworking)
import Dispatch
import Foundation

/// The delegate queue of a ``URLSessionTransport``'s session on Linux: the blocks
/// FoundationNetworking posts run in order on one serial dispatch queue, and no more than
/// ``backlogLimit`` of them wait at once.
///
/// FoundationNetworking hands every delegate callback (response head, each body chunk,
/// completion) to `delegateQueue.addOperation { }`. On a plain `OperationQueue` each one becomes
/// a `BlockOperation` with a condition, two locks and three key-path checks: about 7 µs per
/// callback, three callbacks per small request, measured with `perf` (Docs/Benchmarks.md). Run
/// here, the blocks keep the order and one-at-a-time execution a queue limited to one operation
/// gives, without that bookkeeping. Only the block form is short-circuited; anything else goes
/// through `OperationQueue` as usual.
///
/// The limit is the session's backpressure. Each body chunk libcurl reads (up to 16 KiB) is one
/// block holding its bytes; with the delegate queue's thread behind libcurl's, the blocks piled
/// up unbounded before any of Net's own limits could see them (665 at once, about 10 MiB, in a
/// 100 MiB download to a file, and the process's peak memory twice raw URLSession's). Past the
/// limit, the thread posting the block (FoundationNetworking's, which runs libcurl) waits for the
/// queue to run one, so libcurl stops reading until the bytes have been handed on.
///
/// That wait lasts at most ``longestWait``: should a block ever wait on FoundationNetworking's
/// thread while that thread waits here (its internals are not Net's to prove free of that), the
/// block is queued past the limit after the pause instead of both waiting forever.
final class DelegateQueue: OperationQueue, @unchecked Sendable {
    // `@unchecked` restates `OperationQueue`'s own conformance, which a subclass must repeat: the
    // properties added here are immutable and thread-safe by design (a `DispatchQueue`, a
    // `DispatchSemaphore`, a key object used only for its identity, and a `Locked` counter).

    /// Blocks that may wait to run at once: 64, about 1 MiB of body chunks.
    static let backlogLimit = 64
    /// The longest a posting thread waits for room: 50 ms.
    static let longestWait = DispatchTimeInterval.milliseconds(50)

    private let serial = DispatchQueue(label: "Net.URLSessionTransport.delegate")
    private let longestWait: DispatchTimeInterval
    private let pastLimit = Locked(0)

    /// How many blocks found no room within ``longestWait`` and were queued past the limit.
    var postsPastLimit: Int { pastLimit.withLock { $0 } }
    private let room = DispatchSemaphore(value: DelegateQueue.backlogLimit)
    /// Set on `serial`: a block posted from a block already running there must not wait for
    /// the queue it would be holding up.
    private let onSerial = DispatchSpecificKey<Bool>()

    /// A queue whose posting threads wait at most `longestWait` for room (tests lengthen it so
    /// that the wait is seen by order, not by time).
    init(longestWait: DispatchTimeInterval = DelegateQueue.longestWait) {
        self.longestWait = longestWait
        super.init()
        serial.setSpecific(key: onSerial, value: true)
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        var counted = false
        if DispatchQueue.getSpecific(key: onSerial) == nil {
            counted = room.wait(timeout: .now() + longestWait) == .success
            // A block that got no room within the wait runs anyway, uncounted.
            if !counted { pastLimit.withLock { $0 += 1 } }
        }
        serial.async { [room, counted] in
            block()
            if counted { room.signal() }
        }
    }
}
#endif

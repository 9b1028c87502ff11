#if canImport(FoundationNetworking)
import Dispatch
import Foundation

/// The delegate queue of a ``URLSessionTransport``'s session on Linux: the blocks
/// FoundationNetworking posts run in order on one serial dispatch queue.
///
/// FoundationNetworking hands every delegate callback (response head, each body chunk,
/// completion) to `delegateQueue.addOperation { }`. On a plain `OperationQueue` each one becomes
/// a `BlockOperation` with a condition, two locks and three key-path checks: about 7 µs per
/// callback, three callbacks per small request, measured with `perf` (Docs/Benchmarks.md). Run
/// here, the blocks keep the order and one-at-a-time execution a queue limited to one operation
/// gives, without that bookkeeping. Only the block form is short-circuited; anything else goes
/// through `OperationQueue` as usual.
final class DelegateQueue: OperationQueue, @unchecked Sendable {
    // `@unchecked` restates `OperationQueue`'s own conformance, which a subclass must repeat: the
    // one property added here is an immutable `DispatchQueue`, itself Sendable.
    private let serial = DispatchQueue(label: "Net.URLSessionTransport.delegate")

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        serial.async(execute: block)
    }
}
#endif

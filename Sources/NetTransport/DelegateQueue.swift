#if canImport(FoundationNetworking)
import Dispatch
import Foundation

/// The delegate queue of a ``URLSessionTransport``'s session on Linux: FoundationNetworking's
/// blocks run at once, on the thread that posts them.
///
/// FoundationNetworking hands every delegate callback (response head, each body chunk, each piece
/// of request body sent, completion) to `delegateQueue.addOperation { }`, from the session's one
/// serial work queue, which is where libcurl runs. On a plain `OperationQueue` each block becomes
/// a `BlockOperation` with a condition, two locks and three key-path checks (about 7 µs per
/// callback, Docs/Linux-notes.md); on a serial dispatch queue it still wakes a second thread per
/// callback, and while that thread waits for the core, the blocks queue up holding the body's
/// chunks (665 blocks, about 10 MiB, in a 100 MiB download). Run in place, the callbacks keep the
/// order the work queue gives them, nothing waits between libcurl and the transport, and a body
/// that arrives faster than it is read goes to ``BodyChannel``'s bounded window and spool file.
///
/// This is safe because ``SessionDelegate`` never waits for FoundationNetworking's queues from a
/// callback: URLSession calls that do (`cancel()`, `resume()`, an authentication challenge's
/// completion handler, which cancels the task) are made from other queues. Only the block form is
/// short-circuited; anything else goes through `OperationQueue` as usual.
final class DelegateQueue: OperationQueue, @unchecked Sendable {
    // `@unchecked` restates `OperationQueue`'s own conformance, which a subclass must repeat; no
    // state is added here.
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
#endif

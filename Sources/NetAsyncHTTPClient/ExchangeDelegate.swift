#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
import NetCore
@_spi(NetInternals) import NetTransport
import NIOCore
import NIOHTTP1

/// One exchange on AsyncHTTPClient's delegate API: the response head for the caller awaiting it,
/// then the body's parts for the task reading them (or, when the exchange has ended by the time
/// the head is handed over, the whole body at once: ``takeWholeBody()``).
///
/// For requests with no body or one sent whole: calls that read the body whole into memory, and
/// bodies read as they arrive (`requestStream`) while the transport is otherwise idle (on its home
/// loop); `AsyncHTTPClientTransport.execute` says why every other request keeps the async API.
///
/// The delegate API, not `execute(_:deadline:)`, because the async API schedules a deadline task
/// on an event loop for every request and cancels it when the head arrives: two hand-offs to the
/// event loop from Swift's pool, and when the loop has gone back to sleep in between, two
/// wake-ups of its thread. Measured at 64 requests in flight, that was most of the context
/// switches Net added to AsyncHTTPClient's own (Benchmarks/NOTEBOOK.md, "AsyncHTTPClientTransport
/// on the delegate API"). The pipeline's deadline cancels the exchange instead (``cancel()``).
///
/// The head is handed over at the end of the event loop's turn that read it, so a small body that
/// came in the same read reaches the caller with its head, in one hand-off; a body still coming
/// does not hold the head back. A reader waiting for the body is woken the same way, once per
/// turn with every part read in it, not once per part. Reads pause while ``pauseAt`` bytes wait
/// unread and go on once the reader has taken all but ``resumeBelow`` of them: a slow reader
/// slows the server down.
package final class ExchangeDelegate: HTTPClientResponseDelegate, CancellableAttempt {
    package typealias Response = Void

    /// Unread bytes at which reading from the connection pauses: 512 KiB.
    ///
    /// Not 256 KiB, as before: every pause and resume is a hand-off between the event loop and the
    /// reader, and with half the room a 100 MB OpenAPI download spent 1.22× the CPU of
    /// swift-openapi-async-http-client against 1.04× (the median of 11 alternated rounds; 1 MiB
    /// read no faster and held more: Benchmarks/NOTEBOOK.md, "A lone stream pauses at 512 KiB").
    static let pauseAt = 512 << 10
    /// Unread bytes below which a paused connection is read again: 128 KiB.
    static let resumeBelow = 128 << 10

    /// Who waits for the head, and for the next part of the body.
    ///
    /// Unsafe continuations: `CheckedContinuation` is a resilient type of the Concurrency library,
    /// so every copy and destroy of one (each look at a waiter under the lock) went through the
    /// runtime's generic value witnesses, about 2,000 instructions per exchange (valgrind's
    /// callgrind, Benchmarks/NOTEBOOK.md, "instruction counts per call"). Resumed exactly once: each is
    /// either resumed at once, never stored, or stored in the state and resumed only by the one
    /// caller that takes it out of the state under the lock (`take()`, or set to `nil` in the same
    /// critical section).
    typealias HeadWaiter = UnsafeContinuation<HTTPResponseHead, any Error>
    typealias BodyWaiter = UnsafeContinuation<ByteBuffer?, any Error>

    struct State: Sendable {
        var task: HTTPClient.Task<Void>?
        var head: HTTPResponseHead?
        var headReleased = false
        var headWaiter: HeadWaiter?
        /// Parts not yet taken; a taken part leaves at once, so that its bytes can be freed.
        var parts = CircularBuffer<ByteBuffer>(initialCapacity: 4)
        var unread = 0
        /// Completed when the reader has caught up: AsyncHTTPClient reads on only then.
        var paused: EventLoopPromise<Void>?
        var bodyWaiter: BodyWaiter?
        /// A wake-up of the waiting reader is on the event loop's queue.
        var wakeScheduled = false
        /// How AsyncHTTPClient ended the exchange: finished, or failed.
        var end: Result<Void, any Error>?
        /// The caller gave up: was cancelled, or dropped the body.
        var cancelled = false
    }

    /// Internal, as the members below are, only for the callbacks in
    /// `ExchangeDelegate+Callbacks.swift`: nothing else in the module touches them.
    let state = Locked(State())
    /// Reports a body sent whole (its upload progress and metrics) once it has been written.
    let sentWhole: (@Sendable () -> Void)?
    /// Where the head's arrival is noted as the first byte.
    let record: ExchangeMetricsRecorder?
    /// Told when the exchange has ended, under the count it was started in (`counted`).
    let affinity: LoopAffinity
    /// ``LoopAffinity/Counted/readWhole`` for a call read into memory (``LoopAffinity/starting()``),
    /// ``LoopAffinity/Counted/other`` for a stream (``LoopAffinity/startingStream()``).
    let counted: LoopAffinity.Counted

    /// `sentWhole` runs when a request body handed over in one piece has been written.
    package init(record: ExchangeMetricsRecorder?, sentWhole: (@Sendable () -> Void)?, affinity: LoopAffinity,
                 counted: LoopAffinity.Counted) {
        self.record = record
        self.sentWhole = sentWhole
        self.affinity = affinity
        self.counted = counted
    }

    /// Sends the request with `send` and keeps its task, unless the caller gave up first: then
    /// nothing is sent and the exchange ends here (the send may run a turn of the event loop
    /// after the call started, and a cancelled or timed-out call must not reach the server).
    package func start(_ send: () -> HTTPClient.Task<Void>) {
        if state.withLock({ $0.cancelled }) {
            end(.failure(CancellationError()))  // never sent: AsyncHTTPClient will not end it
            return
        }
        attach(send())  // a cancel from here on is caught by `attach`
    }

    /// Keeps the request's task, to cancel it; cancels it at once if the caller gave up already.
    private func attach(_ task: HTTPClient.Task<Void>) {
        let cancelNow = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled && state.end == nil
        }
        if cancelNow { task.cancel() }
    }

    /// The response head, once it has been handed over; AsyncHTTPClient's error if none came.
    /// Asked for once per exchange: the head is moved out to its caller, not kept.
    package func head() async throws -> HTTPResponseHead {
        try await withUnsafeThrowingContinuation { (continuation: HeadWaiter) in
            let outcome = state.withLock { state -> Result<HTTPResponseHead, any Error>? in
                if state.cancelled { return .failure(CancellationError()) }
                // Moved out: the head is asked for once.
                if state.headReleased, let head = state.head.take() { return .success(head) }
                // Ended with no head to hand over (or it was taken already): nothing will resume a waiter.
                if state.head == nil, let end = state.end {
                    if case .failure(let error) = end { return .failure(error) }
                    return .failure(NetworkError.transport(.connectionLost("the exchange ended without a response head")))
                }
                state.headWaiter = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// The next part of the body in arrival order, `nil` at its end; cancelling the reading task
    /// cancels the exchange.
    func nextPart() async throws -> ByteBuffer? {
        if Task.isCancelled {
            cancel()
            throw CancellationError()
        }
        // Most parts are waiting already: taken without a continuation.
        let (taken, resume) = state.withLock { state in Self.take(&state) }
        resume?.succeed(())
        if let taken { return try taken.get() }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: BodyWaiter) in
                let (taken, resume) = state.withLock { state -> (Result<ByteBuffer?, any Error>?, EventLoopPromise<Void>?) in
                    let (taken, resume) = Self.take(&state)
                    if taken == nil {
                        if state.bodyWaiter != nil {
                            return (.failure(NetworkError.transport(.other("a response body was read by two tasks at once; read it from one"))), resume)
                        }
                        state.bodyWaiter = continuation
                    }
                    return (taken, resume)
                }
                resume?.succeed(())
                if let taken { continuation.resume(with: taken) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// A waiting part, the end, or `nil` to wait; with the paused read to resume, if any.
    static func take(_ state: inout State) -> (Result<ByteBuffer?, any Error>?, EventLoopPromise<Void>?) {
        if state.cancelled { return (.failure(CancellationError()), nil) }
        if let part = state.parts.popFirst() {
            state.unread -= part.readableBytes
            var resume: EventLoopPromise<Void>?
            if state.unread < resumeBelow { swap(&resume, &state.paused) }
            return (.success(part), resume)
        }
        switch state.end {
        case .success: return (.success(nil), nil)
        case .failure(let error): return (.failure(error), nil)
        case nil: return (nil, nil)
        }
    }

    /// The caller gave up (cancelled, or dropped the body): the request is cancelled, which closes
    /// its connection, and whoever waits gets `CancellationError`.
    @inline(never)  // its temporaries stay out of the async frames that call it
    package func cancel() {
        let pending = state.withLock { state -> Pending? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            state.parts.removeAll(keepingCapacity: true)
            state.unread = 0
            let paused = Pending.takePaused(&state)
            let head = state.headWaiter.take().map { ($0, Result<HTTPResponseHead, any Error>.failure(CancellationError())) }
            let body = state.bodyWaiter.take().map { ($0, Result<ByteBuffer?, any Error>.failure(CancellationError())) }
            return Pending(task: state.end == nil ? state.task : nil, head: head, body: body, paused: paused)
        }
        pending?.resume()
    }

    /// The whole body, when the exchange has already ended well with every part of it waiting
    /// (a small body read in the same turn as its head): taken, so that the body goes to the
    /// caller as one `Data`, with no sequence to read it through. `nil` otherwise.
    func takeWholeBody() -> Data? {
        state.withLock { state -> Data? in
            guard case .success = state.end, !state.cancelled else { return nil }
            defer {
                state.parts.removeAll(keepingCapacity: true)  // without: a new buffer, allocated and grown (about 1,500 instructions)
                state.unread = 0
            }
            if state.parts.count == 1, let part = state.parts.first { return ResponseChunks.data(sharing: part) }
            var body = Data(capacity: state.unread)
            for part in state.parts { body.append(contentsOf: part.readableBytesView) }
            return body
        }
    }

    /// The body's reader is done with it: read to its end, failed, or dropped unread.
    func readerDone() {
        let unfinished = state.withLock { $0.end == nil && !$0.cancelled }
        if unfinished { cancel() }
    }

    /// What to resume when the exchange ends, taken from the state to be resumed outside its lock.
    ///
    /// An object: as a value (344 bytes) it was copied and destroyed through the runtime's generic
    /// witnesses for its optional tuples, seven copies and nine destroys per exchange, about 2,000
    /// instructions (valgrind's callgrind, Benchmarks/NOTEBOOK.md, "instruction counts per call"); one
    /// allocation costs a tenth of that.
    final class Pending: Sendable {
        let task: HTTPClient.Task<Void>?
        let head: (HeadWaiter, Result<HTTPResponseHead, any Error>)?
        let body: (BodyWaiter, Result<ByteBuffer?, any Error>)?
        let paused: EventLoopPromise<Void>?

        init(task: HTTPClient.Task<Void>?,
             head: (HeadWaiter, Result<HTTPResponseHead, any Error>)?,
             body: (BodyWaiter, Result<ByteBuffer?, any Error>)?,
             paused: EventLoopPromise<Void>?) {
            self.task = task
            self.head = head
            self.body = body
            self.paused = paused
        }

        /// Takes the paused read, over once the exchange is; first, so that taking a part after it
        /// cannot hand the read on to be resumed by nobody.
        static func takePaused(_ state: inout State) -> EventLoopPromise<Void>? {
            state.headReleased = true
            return state.paused.take()
        }

        func resume() {
            task?.cancel()
            paused?.succeed(())
            if let (waiter, outcome) = head { waiter.resume(with: outcome) }
            if let (waiter, outcome) = body { waiter.resume(with: outcome) }
        }
    }
}
#endif

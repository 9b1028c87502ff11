import Foundation
import NetCore

/// The body of a transport that cannot pause its reads (URLSession on Linux: measured in
/// Docs/Linux-notes.md), handed from the thread that receives it to the task that reads it.
///
/// Up to a window of bytes (``streamedWindow``, or ``fileWindow`` for a body bound for a file)
/// waits in memory; past that, arriving chunks are appended to an unlinked temporary file (in
/// writes of the window's size, so the writing keeps up with the network) and read back in order,
/// so a slow consumer costs disk, not memory. The file has no name (nothing can be left behind)
/// and is closed when the body ends.
///
/// A body written to a file (``drain(into:)``) skips all that once what waits
/// is written: each chunk then goes to the file on the thread it arrives on, as URLSession's own
/// download tasks write theirs, so memory holds one chunk and no reader is woken per chunk.
final class BodyChannel: Sendable {
    /// The window of a body read as it arrives or into memory: 1 MiB.
    static let streamedWindow = 1 << 20
    /// The window of a body bound for a file: 256 KiB. Its drain starts only once the call has
    /// its head and has made the file, and meanwhile libcurl reads on at full speed (measured:
    /// 1 to 6 MiB arrived first on one core); the spool takes that as well as memory would.
    static let fileWindow = 256 << 10

    /// The window for a body that its call uses so.
    static func window(for use: ResponseBodyUse) -> Int {
        use == .toFile ? fileWindow : streamedWindow
    }

    private struct State: Sendable {
        var chunks: [Data] = []
        var head = 0
        var buffered = 0
        /// What came past the window: newer than everything in `chunks` while it is active.
        var spool = BodySpool()
        var waiter: CheckedContinuation<Data?, any Error>?
        var end: Result<Void, any Error>?
        var cancelled = false
        /// Stops the producer when the reader gives up (drops the body, is cancelled).
        var stopProducer: (@Sendable () -> Void)?
        /// Where arriving chunks are written directly, once the reader has drained the rest.
        var sink: FileWriter?
    }

    private let state = Locked(State())
    private let spoolDirectory: URL
    /// The most bytes that may wait for the reader, in memory and spooled; `nil` for no limit.
    private let backlogLimit: Int64?
    /// Bytes held in memory before arriving chunks go to the spool file, and the size of the
    /// blocks they are written to it in.
    private let window: Int

    init(spoolDirectory: URL, backlogLimit: Int64? = nil, window: Int = BodyChannel.streamedWindow) {
        self.spoolDirectory = spoolDirectory
        self.backlogLimit = backlogLimit
        self.window = window
    }

    /// Sets what stops the producer when the reader gives up (drops the body, is cancelled).
    func onCancel(_ stopProducer: @escaping @Sendable () -> Void) {
        state.withLock { $0.stopProducer = stopProducer }
    }

    deinit {
        state.withLock { state in
            state.spool.discard()
        }
    }

    /// The body for this channel; dropping it cancels the producer.
    func body() -> NetworkResponseBody {
        NetworkResponseBody(storage: .channel(self), lease: BodyLease(parent: nil) { [self] in cancel() })
    }

    /// The whole body, when it has already ended well and waits in memory, unread (a small body
    /// whose head was held back for it): taken, so that it goes to the caller as one `Data` with
    /// no channel to read it through. `nil` otherwise.
    func takeWhole() -> Data? {
        state.withLock { state -> Data? in
            guard case .success = state.end, !state.cancelled, !state.spool.isActive, state.head == 0 else { return nil }
            defer {
                state.chunks = []
                state.buffered = 0
            }
            if state.chunks.count == 1 { return state.chunks[0] }
            var whole = Data(capacity: state.buffered)
            for chunk in state.chunks { whole.append(chunk) }
            return whole
        }
    }

    /// Hands `data` to the reader, keeps it (in memory, then in the spool file) until read, or
    /// writes it to a drain's file. Returns an error when the spool file or that file cannot be
    /// written.
    func yield(_ data: Data) -> (any Error)? {
        let (error, handoff, report) = state.withLock { state -> ((any Error)?, Handoff?, ProgressReport?) in
            guard state.end == nil, !state.cancelled, !data.isEmpty else { return (nil, nil, nil) }
            if state.sink != nil {
                let (error, report) = Self.write(data, to: &state)
                return (error, nil, report)
            }
            let error = keep(data, in: &state)
            return (error, Self.handoff(&state), nil)
        }
        handoff?.perform()
        report?.perform()
        return error
    }

    /// Writes `data` to the sink, inside the lock: once the body has ended or been cancelled
    /// (both under it), nothing writes to the drain's file any more, and its caller may close it.
    /// The progress is returned, to be reported once the lock is released: a handler that cancels
    /// the call cancels this channel, which takes the lock again.
    private static func write(_ data: Data, to state: inout State) -> (error: (any Error)?, report: ProgressReport?) {
        guard var sink = state.sink else { return (nil, nil) }
        do {
            try sink.writeUnreported(data)
        } catch {
            return (error, nil)
        }
        state.sink = sink
        return (nil, sink.progress.map { ProgressReport(progress: $0, offset: sink.offset) })
    }

    /// A sink's progress, told the offset its writes reached.
    private struct ProgressReport {
        let progress: @Sendable (Int64) -> Void
        let offset: Int64

        func perform() { progress(offset) }
    }

    /// Keeps `data` for the reader: in memory within the window, past it in the spool file.
    private func keep(_ data: Data, in state: inout State) -> (any Error)? {
        if !state.spool.isActive && state.buffered + data.count <= window {
            state.chunks.append(data)
            state.buffered += data.count
            return nil
        }
        // The backlog: the memory window and what the spool holds unread. Past the limit the
        // body fails, and the caller stops the producer.
        let backlog = Int64(state.buffered) + state.spool.unread + Int64(data.count)
        if let backlogLimit, backlog > backlogLimit {
            return NetworkError.transport(.responseBodyLimitExceeded(.unreadBacklog(bytes: backlogLimit)))
        }
        do {
            try state.spool.append(data, block: window, directory: spoolDirectory)
        } catch {
            return error
        }
        return nil
    }

    /// The producer is done: `error` ends the body with it, `nil` ends it normally.
    func finish(_ error: (any Error)?) {
        state.withLock { state -> Handoff? in
            guard state.end == nil, !state.cancelled else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            return Self.handoff(&state)
        }?.perform()
    }

    /// A waiting reader and what it gets, resumed once the lock is released: a reader woken
    /// inside it can take the core at once, and then spin on the lock its waker still holds.
    private struct Handoff: Sendable {
        let waiter: CheckedContinuation<Data?, any Error>
        let result: Result<Data?, any Error>

        func perform() { waiter.resume(with: result) }
    }

    /// The waiting reader, if any, with the next chunk or the end; `nil` (the reader keeps
    /// waiting) if neither is there yet.
    private static func handoff(_ state: inout State) -> Handoff? {
        guard let waiter = state.waiter, let result = take(&state) else { return nil }
        state.waiter = nil
        return Handoff(waiter: waiter, result: result)
    }

    /// The reader gave up: drops what is buffered and stops the producer.
    func cancel() {
        let (stop, waiter) = state.withLock { state -> ((@Sendable () -> Void)?, CheckedContinuation<Data?, any Error>?) in
            guard !state.cancelled else { return (nil, nil) }
            // The sink stays, for its count: `yield` writes nothing once `cancelled` is set.
            state.cancelled = true
            state.chunks = []
            state.buffered = 0
            state.spool.discard()
            defer { state.waiter = nil }
            return (state.end == nil ? state.stopProducer : nil, state.waiter)
        }
        waiter?.resume(throwing: CancellationError())
        stop?()
    }

    /// The next chunk in arrival order, `nil` at the end; cancelling the task cancels the body.
    func next() async throws -> Data? {
        try await wait(installing: nil)
    }

    /// Writes the whole body through `writer` and returns the offset its end reached. What waits
    /// (in memory, spooled) is written from here; after that each chunk is written where it
    /// arrives, and the writer's progress runs there too, just after the channel's lock: on
    /// URLSession's work queue, so it must return at once. Cancelling the task cancels the body;
    /// the writer's file is not used once this returns or throws, and its progress is told at
    /// most the offset of a write made before then.
    func drain(into writer: FileWriter) async throws -> Int64 {
        var writer = writer
        while true {
            if Task.isCancelled {
                cancel()
                throw CancellationError()
            }
            // What waits is taken without suspending; the sink is set only once nothing does.
            let step: Result<Data?, any Error>
            if let waiting = state.withLock({ state in Self.take(&state) }) {
                step = waiting
            } else {
                step = .success(try await wait(installing: writer))
            }
            switch step {
            case .success(let data?):
                try writer.write(data)
            case .success(nil):
                // The end: what the producer wrote through the sink counts too.
                return state.withLock { $0.sink?.offset } ?? writer.offset
            case .failure(let error):
                throw error
            }
        }
    }

    /// The queue's length in memory, taken places included (for tests: it must stay bounded).
    var queuedChunkSlots: Int { state.withLock { $0.chunks.count } }

    /// Whether arriving chunks are now written to a drain's file where they arrive.
    var writesAsItArrives: Bool { state.withLock { $0.sink != nil } }

    /// The next chunk, waited for as the body's one reader if none is there yet. With `sink`,
    /// the wait installs it: arriving chunks then go to its file, and the wait ends with the body
    /// (`nil`), or with a chunk that came between the drain's look and this one.
    private func wait(installing sink: FileWriter?) async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let now = state.withLock { state -> Result<Data?, any Error>? in
                    if let taken = Self.take(&state) { return taken }
                    guard state.waiter == nil else {
                        return .failure(NetworkError.transport(.other("a response body was read by two tasks at once; read it from one")))
                    }
                    if let sink { state.sink = sink }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The next chunk (`nil` inside: the end) or the body's error, taken in arrival order; `nil`
    /// when there is nothing yet.
    private static func take(_ state: inout State) -> Result<Data?, any Error>? {
        if state.cancelled { return .failure(CancellationError()) }
        if state.head < state.chunks.count {
            let data = state.chunks[state.head]
            // The array lets go of a chunk once taken, and is compacted once half of it is taken:
            // a reader just behind its writer may never find it empty, and taken chunks kept until
            // then would grow without bound while the window counts only those not yet taken.
            state.chunks[state.head] = Data()
            state.head += 1
            state.buffered -= data.count
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head >= 64, state.head * 2 >= state.chunks.count {
                state.chunks.removeFirst(state.head)
                state.head = 0
            }
            return .success(data)
        }
        do {
            if let spooled = try state.spool.next() { return .success(spooled) }
        } catch {
            return .failure(error)
        }
        switch state.end {
        case .failure(let error): return .failure(error)
        case .success: return .success(nil)
        case nil: return nil
        }
    }
}

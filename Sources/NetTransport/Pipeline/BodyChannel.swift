import Foundation
import NetCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of a transport that cannot pause its reads (URLSession on Linux: measured in
/// Docs/Linux-notes.md), handed from the thread that receives it to the task that reads it.
///
/// Up to ``memoryWindow`` bytes wait in memory; past that, arriving chunks are appended to an
/// unlinked temporary file (in ``spoolBlock``-sized writes, so the writing keeps up with the
/// network) and read back in order, so a slow consumer costs disk, not memory. The file has no
/// name (nothing can be left behind) and is closed when the body ends.
final class BodyChannel: Sendable {
    /// Bytes held in memory before arriving chunks go to the spool file: 1 MiB.
    static let memoryWindow = 1 << 20
    /// The most bytes read back from the spool file at once.
    static let spoolReadSize = 256 << 10
    /// Spilled bytes gathered in memory before one write to the spool file.
    static let spoolBlock = 1 << 20

    private struct State: Sendable {
        var chunks: [Data] = []
        var head = 0
        var buffered = 0
        var spool: Int32 = -1
        var spoolWritten: Int64 = 0
        var spoolRead: Int64 = 0
        var spooling = false
        /// Spilled chunks not yet written to the file: newer than everything in it.
        var pending = Data()
        var waiter: CheckedContinuation<Data?, any Error>?
        var end: Result<Void, any Error>?
        var cancelled = false
        /// Stops the producer when the reader gives up (drops the body, is cancelled).
        var stopProducer: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    private let spoolDirectory: URL
    /// The most bytes that may wait for the reader, in memory and spooled; `nil` for no limit.
    private let backlogLimit: Int64?

    init(spoolDirectory: URL, backlogLimit: Int64? = nil) {
        self.spoolDirectory = spoolDirectory
        self.backlogLimit = backlogLimit
    }

    /// Sets what stops the producer when the reader gives up (drops the body, is cancelled).
    func onCancel(_ stopProducer: @escaping @Sendable () -> Void) {
        state.withLock { $0.stopProducer = stopProducer }
    }

    deinit {
        state.withLock { state in
            if state.spool >= 0 { close(state.spool) }
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
            guard case .success = state.end, !state.cancelled, !state.spooling, state.head == 0 else { return nil }
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

    /// Hands `data` to the reader, or keeps it (in memory, then in the spool file) until read.
    /// Returns an error when the spool file cannot be written.
    func yield(_ data: Data) -> (any Error)? {
        let (error, handoff) = state.withLock { state -> ((any Error)?, Handoff?) in
            guard state.end == nil, !state.cancelled, !data.isEmpty else { return (nil, nil) }
            let error = keep(data, in: &state)
            return (error, Self.handoff(&state))
        }
        handoff?.perform()
        return error
    }

    /// Keeps `data` for the reader: in memory within the window, past it in the spool file.
    private func keep(_ data: Data, in state: inout State) -> (any Error)? {
        if !state.spooling && state.buffered + data.count <= Self.memoryWindow {
            state.chunks.append(data)
            state.buffered += data.count
            return nil
        }
        state.spooling = true
        // The backlog: the memory window, what the spool file holds unread, and what waits to
        // be written to it. Past the limit the body fails, and the caller stops the producer.
        let backlog = Int64(state.buffered) + state.spoolWritten - state.spoolRead + Int64(state.pending.count) + Int64(data.count)
        if let backlogLimit, backlog > backlogLimit {
            return NetworkError.transport(.responseBodyLimitExceeded(.unreadBacklog(bytes: backlogLimit)))
        }
        state.pending.append(data)
        guard state.pending.count >= Self.spoolBlock else { return nil }
        do {
            if state.spool < 0 { state.spool = try Self.openSpool(in: spoolDirectory) }
            try Self.write(state.pending, to: state.spool, at: state.spoolWritten)
        } catch {
            return error
        }
        state.spoolWritten += Int64(state.pending.count)
        state.pending.removeAll(keepingCapacity: true)
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
            state.cancelled = true
            state.chunks = []
            state.pending = Data()
            state.buffered = 0
            if state.spool >= 0 { close(state.spool) }
            state.spool = -1
            defer { state.waiter = nil }
            return (state.end == nil ? state.stopProducer : nil, state.waiter)
        }
        waiter?.resume(throwing: CancellationError())
        stop?()
    }

    /// The next chunk in arrival order, `nil` at the end; cancelling the task cancels the body.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let now = state.withLock { state -> Result<Data?, any Error>? in
                    if let taken = Self.take(&state) { return taken }
                    guard state.waiter == nil else {
                        return .failure(NetworkError.transport(.other("a response body was read by two tasks at once; read it from one")))
                    }
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
            state.head += 1
            state.buffered -= data.count
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return .success(data)
        }
        if state.spooling && state.spoolRead == state.spoolWritten {
            // The file is drained: what is left was spilled after its last write.
            let data = state.pending
            state.pending = Data()
            _ = ftruncate(state.spool, 0)
            state.spoolRead = 0
            state.spoolWritten = 0
            state.spooling = false
            if !data.isEmpty { return .success(data) }
        }
        if state.spooling {
            let count = Int(min(Int64(spoolReadSize), state.spoolWritten - state.spoolRead))
            var data = Data(count: count)
            let read = data.withUnsafeMutableBytes { pread(state.spool, $0.baseAddress, count, off_t(state.spoolRead)) }
            guard read == count else {
                return .failure(NetworkError.transport(.cannotWriteBody(path: "(spool file)", reason: "the spooled body could not be read back")))
            }
            state.spoolRead += Int64(count)
            return .success(data)
        }
        switch state.end {
        case .failure(let error): return .failure(error)
        case .success: return .success(nil)
        case nil: return nil
        }
    }

    private static func openSpool(in directory: URL) throws -> Int32 {
        let template = directory.appendingPathComponent("net-body-XXXXXX").path
        var path = Array(template.utf8CString)
        let fd = path.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // the buffer is never empty: it holds the template
        guard fd >= 0 else {
            throw NetworkError.transport(.cannotWriteBody(path: template, reason: "the spool file cannot be created: \(String(cString: strerror(errno)))"))
        }
        path.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }  // nameless from here on: nothing to clean up
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // not inherited by processes the app starts (mkostemp is not in Glibc's module)
        return fd
    }

    private static func write(_ data: Data, to fd: Int32, at offset: Int64) throws {
        var written = 0
        while written < data.count {
            let result = data.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, data.count - written, off_t(offset) + off_t(written)) }  // non-empty: checked by the caller
            guard result > 0 else {
                throw NetworkError.transport(.cannotWriteBody(path: "(spool file)", reason: "the body could not be spooled to disk: \(String(cString: strerror(errno)))"))
            }
            written += result
        }
    }
}

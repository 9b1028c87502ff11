import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// One URLSession task, from `resume()` to exactly one resumption of the waiting caller.
///
/// The caller is resumed by whichever comes first: URLSession completing, the calling task being
/// cancelled, or the deadline passing. It never waits for URLSession to acknowledge a
/// cancellation, because on Linux (Swift 6.3.1) a cancelled task may never complete.
final class TaskBridge: Sendable {
    private struct State: Sendable {
        var continuation: CheckedContinuation<TransportResponse, any Error>?
        var task: URLSessionTask?
        var finished = false
        var urlSessionCompleted = false
        var head: NetworkResponseHead?
        var body = Data()
        var file: FileHandle?
        var received: Int64 = 0
        var deadline: Int?
        /// What ended the call before `wait` stored the continuation (the deadline, a cancel).
        var endedBy: (any Error)?
    }

    private let destination: TransportBodyDestination
    private let progress: TransportProgressHandler?
    private let request: NetworkRequest
    private let limits: ResponseLimits
    private let cancelQueue: DispatchQueue
    private let state = Locked(State())

    /// `cancelQueue` is where URLSession's blocking `cancel()` is called (see
    /// `URLSessionTransport.cancelQueue`).
    init(request: NetworkRequest, destination: TransportBodyDestination, limits: ResponseLimits, cancelQueue: DispatchQueue,
         progress: TransportProgressHandler?) {
        self.request = request
        self.destination = destination
        self.limits = limits
        self.cancelQueue = cancelQueue
        self.progress = progress
    }

    /// Stores the caller's continuation and arms the deadline, before the URLSession task exists:
    /// creating the task may wait for URLSession's busy internal queue, and the deadline and
    /// cancellation must hold meanwhile. Resumes at once if the call already ended.
    func wait(_ continuation: CheckedContinuation<TransportResponse, any Error>, deadline: ContinuousClock.Instant) {
        // On the deadline scheduler's own thread, not a Task: the deadline must hold even when the
        // cooperative thread pool is saturated by the caller's own work.
        let timer = DeadlineScheduler.shared.schedule(after: ContinuousClock.now.duration(to: deadline)) { [weak self] in
            guard let self else { return }
            self.fail(NetworkError.transport(.timedOut("no complete response within \(self.timeoutText)")))
        }
        let endedBy = state.withLock { state -> (any Error)? in
            guard !state.finished else { return state.endedBy ?? CancellationError() }
            state.continuation = continuation
            state.deadline = timer
            return nil
        }
        if let endedBy {
            DeadlineScheduler.shared.cancel(timer)
            continuation.resume(throwing: endedBy)
        }
    }

    /// Whether the call has ended (so no task needs to be made for it).
    var hasEnded: Bool { state.withLock { $0.finished } }

    /// Starts `task` for this call, unless the call already ended (its deadline passed or it was
    /// cancelled while the task was being made); returns whether the task was started.
    func start(_ task: URLSessionTask) -> Bool {
        let started = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.task = task
            return true
        }
        if started { task.resume() }
        return started
    }

    private var timeoutText: String {
        let timeout = request.timeout.map { "\($0)" } ?? "the default timeout"
        return "\(timeout) (\(request))"
    }

    /// The response head arrived; opens the destination file if there is one.
    func receive(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else {
            fail(NetworkError.transport(.other("not an HTTP response from \(request.redactedURL)")))
            return
        }
        let head = NetworkResponseHead(http, fallbackURL: request.url)
        let openError = state.withLock { state -> (any Error)? in
            guard !state.finished else { return nil }
            state.head = head
            state.body = Data()
            state.received = 0
            if case .file(let url) = destination {
                do { state.file = try BodyFile.create(at: url) } catch { return error }
            }
            return nil
        }
        if let openError { fail(openError) }
    }

    /// Body bytes arrived: appended in memory or written straight to the file.
    func receive(_ data: Data) {
        let outcome = state.withLock { state -> Result<NetworkProgress?, any Error> in
            guard !state.finished else { return .success(nil) }
            // libcurl has already decoded the body; the head still says how it was encoded, and
            // its Content-Length (if any) is the compressed size.
            let encoding = state.head?.headers["Content-Encoding"]?.lowercased()
            let isCompressed = encoding.map { !$0.isEmpty && $0 != "identity" } ?? false
            if let limit = limits.exceeded(
                decoded: state.received + Int64(data.count), inMemory: destination.isMemory,
                declaredCompressedLength: isCompressed ? state.head?.expectedContentLength : nil, isCompressed: isCompressed)
            {
                return .failure(NetworkError.transport(.responseBodyLimitExceeded(limit)))
            }
            do {
                if let file = state.file, case .file(let url) = destination {
                    try BodyFile.write(data, to: file, path: url.path)
                } else {
                    state.body.append(data)
                }
            } catch {
                return .failure(error)
            }
            state.received += Int64(data.count)
            return .success(NetworkProgress(direction: .download, completedBytes: state.received,
                                            expectedBytes: state.head?.expectedContentLength))
        }
        switch outcome {
        case .success(let report): if let report { progress?(report) }
        case .failure(let error): fail(error)
        }
    }

    /// Request body bytes went out.
    func sent(total: Int64, expected: Int64) {
        guard let progress else { return }
        let finished = state.withLock { $0.finished }
        guard !finished else { return }
        progress(NetworkProgress(direction: .upload, completedBytes: total, expectedBytes: expected > 0 ? expected : nil))
    }

    /// URLSession finished the task, with or without an error.
    func complete(with error: (any Error)?) {
        let outcome = state.withLock { state -> Result<TransportResponse, any Error>? in
            state.urlSessionCompleted = true
            guard !state.finished else { return nil }
            if let error { return .failure(URLErrorMapping.networkError(for: error, request: request)) }
            guard let head = state.head else {
                return .failure(NetworkError.transport(.connectionLost("no response from \(request.redactedURL)")))
            }
            if let shortfall = Self.shortBody(head: head, received: state.received, method: request.httpMethod) {
                return .failure(shortfall)
            }
            return closeBody(&state, head: head)
        }
        if let outcome { finish(outcome) }
    }

    /// Ends the call with a response whose body URLSession withholds (an HTTP authentication
    /// challenge on Linux); an empty destination file is still created for downloads.
    func completeWithoutBody(_ response: URLResponse) {
        receive(response)
        let outcome = state.withLock { state -> Result<TransportResponse, any Error>? in
            guard !state.finished, let head = state.head else { return nil }
            return closeBody(&state, head: head)
        }
        if let outcome { finish(outcome) }
    }

    /// Closes the destination file, if any, and builds the response from what arrived.
    private func closeBody(_ state: inout State, head: NetworkResponseHead) -> Result<TransportResponse, any Error> {
        guard let file = state.file, case .file(let url) = destination else {
            return .success(TransportResponse(head: head, body: state.body))
        }
        state.file = nil
        do { try file.close() } catch {
            return .failure(NetworkError.transport(.cannotWriteBody(path: url.path, reason: "\(error)")))
        }
        return .success(TransportResponse(head: head, fileURL: url, bodyByteCount: state.received))
    }

    /// Resumes the caller with `outcome`, unless a cancellation or the deadline ended the call first.
    private func finish(_ outcome: Result<TransportResponse, any Error>) {
        guard case .success(let response) = outcome else {
            if case .failure(let error) = outcome { fail(error) }
            return
        }
        let ended = state.withLock { state -> (CheckedContinuation<TransportResponse, any Error>?, Int?)? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil; state.task = nil; state.deadline = nil }
            return (state.continuation, state.deadline)
        }
        guard let (continuation, deadline) = ended else { return }
        if let deadline { DeadlineScheduler.shared.cancel(deadline) }
        continuation?.resume(returning: response)
    }

    /// Ends the call with `error`: removes what was written, resumes the caller, stops the task.
    func fail(_ error: any Error) {
        let ended = state.withLock { state -> (CheckedContinuation<TransportResponse, any Error>?, URLSessionTask?, Int?)? in
            guard !state.finished else { return nil }
            state.finished = true
            state.endedBy = error
            if let file = state.file { try? file.close() }
            state.file = nil
            state.body = Data()
            defer { state.continuation = nil; state.deadline = nil }
            return (state.continuation, state.urlSessionCompleted ? nil : state.task, state.deadline)
        }
        guard let (continuation, task, deadline) = ended else { return }
        if let deadline { DeadlineScheduler.shared.cancel(deadline) }
        if case .file(let url) = destination { BodyFile.remove(url) }
        continuation?.resume(throwing: error)
        if let task { stopLater(task) }
    }

    /// Cancels the URLSession task shortly, off this thread, unless it completes first.
    ///
    /// Cancelling a task that is completing at that moment can crash Foundation on Linux (6.3.1);
    /// waiting 50 ms lets short exchanges finish on their own, so only long transfers, which are
    /// not completing, are cancelled.
    private func stopLater(_ task: URLSessionTask) {
        cancelQueue.asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in
            let completed = state.withLock { state in
                defer { state.task = nil }
                return state.urlSessionCompleted
            }
            if !completed { task.cancel() }
        }
    }

    /// An error when a body without content coding is shorter than its `Content-Length`.
    private static func shortBody(head: NetworkResponseHead, received: Int64, method: NetworkHttpMethod) -> NetworkError? {
        guard method != .head, head.statusCode != 204, head.statusCode != 304,
              head.headers["Content-Encoding"] == nil,
              let expected = head.expectedContentLength, received < expected else { return nil }
        return .transport(.connectionLost("the body ended after \(received) of \(expected) bytes from \(NetworkRedaction.redactedURL(head.url))"))
    }
}

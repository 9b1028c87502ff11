import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// One URLSession task, from `resume()` to the end of its body.
///
/// The caller waiting for the head is resumed exactly once, by whichever comes first: the head
/// arriving, URLSession failing, or the calling task being cancelled. The body then flows through
/// a ``BodyChannel``: URLSession on Linux cannot pause a transfer (suspending a running task
/// resets its connection and resuming sends the request again: Docs/Linux-notes.md), so what
/// the reader has not taken yet waits in the channel's bounded memory and then on disk. The
/// bridge never waits for URLSession to acknowledge a cancellation, because on Linux
/// (Swift 6.3.1) a cancelled task may never complete.
///
/// For a request whose body will be read whole into memory (``NetworkRequest/collectsBodyInMemory``)
/// the head is held back until the body has ended or passed ``heldBodyLimit``: a small body then
/// reaches the caller in one hand-off from FoundationNetworking's work queue instead of three
/// (head, chunk, end), each a thread wake-up. It costs no memory the call would not hold anyway,
/// and the first-byte time is still noted when the head arrives.
final class TaskBridge: Sendable {
    /// The most body bytes held with a held-back head; past it the head goes to the caller and the
    /// body streams on, so the in-memory limit is checked as the body arrives.
    static let heldBodyLimit = 64 << 10

    private struct State: Sendable {
        var continuation: CheckedContinuation<NetworkStreamResponse, any Error>?
        var task: URLSessionTask?
        /// The head went to the caller (or the call ended): later events concern the body only.
        var headDelivered = false
        var urlSessionCompleted = false
        var stopped = false
        /// The head arrived (rather than the call ending before it).
        var headArrived = false
        /// The head's declared length when the body has a content coding (libcurl decodes it, so
        /// the decompression limit is checked here); `nil` for a body without one.
        var compressed: (declaredLength: Int64?, decoded: Int64)?
        /// What ended the call before `wait` stored the continuation (a cancel).
        var endedBy: (any Error)?
        /// A head held back until the body ends or grows past ``heldBodyLimit``.
        var heldHead: NetworkResponseHead?
        var heldBytes = 0
        /// The request body bytes FoundationNetworking had counted as sent when libcurl began to
        /// send the body again (it goes on counting from there).
        var sentBeforeResend: Int64 = 0
        var sentTotal: Int64 = 0
    }

    private let progress: TransportProgressHandler?
    /// Where the request body's progress is noted, in a session call.
    private let record = ExchangeMetricsRecorder.current
    private let request: NetworkRequest
    /// The caller's file being sent, checked as its pieces go out.
    private let sentFile: SentFileCheck?
    /// The request body: its size is the progress's total (FoundationNetworking reports none for
    /// a stream), and libcurl may ask for it again from the start.
    private let upload: UploadSource
    private let limits: ResponseLimits
    private let cancelQueue: DispatchQueue
    private let state = Locked(State())
    private let body: BodyChannel
    /// Whether the head is held back for the body (see ``heldBodyLimit``).
    private let holdsHead: Bool

    /// `cancelQueue` is where URLSession's blocking `cancel()` is called (see
    /// `URLSessionTransport.cancelQueue`); `spoolDirectory` holds the body a slow reader has not
    /// taken yet, past ``BodyChannel``'s window.
    init(request: NetworkRequest, limits: ResponseLimits, cancelQueue: DispatchQueue, spoolDirectory: URL,
         backlogLimit: Int64?, upload: UploadSource = .none, sentFile: SentFileCheck? = nil,
         progress: TransportProgressHandler?) {
        self.request = request
        self.upload = upload
        self.sentFile = sentFile
        self.limits = limits
        self.cancelQueue = cancelQueue
        self.progress = progress
        holdsHead = request.collectsBodyInMemory
        body = BodyChannel(spoolDirectory: spoolDirectory, backlogLimit: backlogLimit,
                           window: BodyChannel.window(for: request.responseBodyUse))
        body.onCancel { [weak self] in self?.stop() }
    }

    /// Stores the caller's continuation, before the URLSession task exists: creating the task may
    /// wait for URLSession's busy internal queue, and cancellation must hold meanwhile. Resumes at
    /// once if the call already ended.
    func wait(_ continuation: CheckedContinuation<NetworkStreamResponse, any Error>) {
        let endedBy = state.withLock { state -> (any Error)? in
            guard !state.headDelivered else { return state.endedBy ?? CancellationError() }
            state.continuation = continuation
            return nil
        }
        if let endedBy { continuation.resume(throwing: endedBy) }
    }

    /// Whether the call has ended before its head (so no task needs to be made for it).
    var hasEnded: Bool { state.withLock { $0.headDelivered && !$0.headArrived } }

    /// Starts `task` for this call, unless the call already ended (cancelled while the task was
    /// being made); returns whether the task was started.
    func start(_ task: URLSessionTask) -> Bool {
        let started = state.withLock { state -> Bool in
            guard !state.stopped, !(state.headDelivered && !state.headArrived) else { return false }
            state.task = task
            return true
        }
        if started { task.resume() }
        return started
    }

    /// The response head arrived: the caller gets it with the body to read (`withheld`: a body
    /// URLSession will never deliver).
    func receive(_ response: URLResponse, withheld: Bool = false) {
        guard let http = response as? HTTPURLResponse else {
            fail(NetworkError.transport(.other("not an HTTP response from \(request.redactedURL)")))
            return
        }
        let head = NetworkResponseHead(http, fallbackURL: request.url)
        let holds = holdsHead && !withheld
        let waiting = state.withLock { state -> CheckedContinuation<NetworkStreamResponse, any Error>? in
            guard !state.headDelivered else { return nil }
            state.headArrived = true
            if head.hasContentCoding {
                // Its Content-Length (if any) is the compressed size.
                state.compressed = (head.expectedContentLength, 0)
            }
            if holds {
                state.heldHead = head
                return nil
            }
            state.headDelivered = true
            defer { state.continuation = nil }
            return state.continuation
        }
        if holds { record?.reached(.firstByte) }
        guard let waiting else { return }
        deliver(head, to: waiting, withheld: withheld)
    }

    private func deliver(_ head: NetworkResponseHead, to waiting: CheckedContinuation<NetworkStreamResponse, any Error>, withheld: Bool = false) {
        // A held-back head whose body has ended brings the body whole: no channel to read it through.
        var delivered = body.takeWhole().map(NetworkResponseBody.init) ?? body.body()
        delivered.isWithheld = withheld
        waiting.resume(returning: NetworkStreamResponse(response: head, body: delivered, originalRequest: request))
    }

    /// Hands a held-back head to the caller (the body ended, failed, or grew past the limit).
    private func releaseHead() {
        let held = state.withLock { state -> (NetworkResponseHead, CheckedContinuation<NetworkStreamResponse, any Error>?)? in
            guard let head = state.heldHead, !state.headDelivered else { return nil }
            state.heldHead = nil
            state.headDelivered = true
            defer { state.continuation = nil }
            return (head, state.continuation)
        }
        if case let (head, waiting?)? = held { deliver(head, to: waiting) }
    }

    /// Body bytes arrived: checked against the decompression limit and handed to the channel.
    func receive(_ data: Data) {
        let limit = state.withLock { state -> NetworkError.ResponseBodyLimit? in
            guard var compressed = state.compressed else { return nil }
            compressed.decoded += Int64(data.count)
            state.compressed = compressed
            return limits.decompressionLimitExceeded(decoded: compressed.decoded, declaredCompressedLength: compressed.declaredLength)
        }
        if let limit {
            releaseHead()
            body.finish(NetworkError.transport(.responseBodyLimitExceeded(limit)))
            stop()
        } else if let error = body.yield(data) {
            releaseHead()
            body.finish(error)
            stop()
        } else if holdsHead {
            let passedLimit = state.withLock { state -> Bool in
                guard state.heldHead != nil else { return false }
                state.heldBytes += data.count
                return state.heldBytes > Self.heldBodyLimit
            }
            if passedLimit { releaseHead() }
        }
    }

    /// Request body bytes went out.
    func sent(total counted: Int64, expected reported: Int64) {
        do {
            try sentFile?.check()
        } catch {
            fail(error)
            return
        }
        let expected = upload.size ?? reported
        let total = state.withLock { state in
            state.sentTotal = counted
            return counted - state.sentBeforeResend
        }
        if let record {
            record.sentRequestBody(bytes: total)
            if expected > 0, total >= expected { record.reached(.requestSent) }
        }
        progress?(NetworkProgress(direction: .upload, completedBytes: total, expectedBytes: expected > 0 ? expected : nil))
    }

    #if canImport(FoundationNetworking)
    /// The request body from its start, for libcurl's resend on a new connection (`nil`: none).
    /// Progress and metrics count the resent bytes from zero again.
    func newBodyStream() -> InputStream? {
        state.withLock { $0.sentBeforeResend = $0.sentTotal }
        return upload.makeStream()
    }
    #endif

    /// URLSession finished the task, with or without an error.
    func complete(with error: (any Error)?) {
        let waiting = state.withLock { state -> CheckedContinuation<NetworkStreamResponse, any Error>?? in
            state.urlSessionCompleted = true
            state.task = nil
            guard !state.headDelivered, state.heldHead == nil else { return .none }
            state.headDelivered = true
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        // A body file that stopped the upload says why (libcurl's own error is a bare abort),
        // even once the head has gone to the caller and the body is what fails.
        let failure = error.map { error -> any Error in
            if case .file(let file) = upload, let stopped = file.recordedFailure { return stopped }
            return URLErrorMapping.networkError(for: error, request: request)
        }
        switch waiting {
        case .none:
            // The body's end first, so that a held-back head brings the whole body with it.
            body.finish(failure)
            releaseHead()
        case .some(let continuation):
            continuation?.resume(throwing: failure ?? NetworkError.transport(.connectionLost("no response from \(request.redactedURL)")))
        }
    }

    /// Ends the call with a response whose body URLSession withholds (an HTTP authentication
    /// challenge on Linux): the head, with an empty body.
    func completeWithoutBody(_ response: URLResponse) {
        receive(response, withheld: true)
        body.finish(nil)
    }

    /// Ends the call before its head with `error` (the caller was cancelled) and stops the task.
    func fail(_ error: any Error) {
        let waiting = state.withLock { state -> CheckedContinuation<NetworkStreamResponse, any Error>?? in
            guard !state.headDelivered else { return .none }
            state.headDelivered = true
            state.endedBy = error
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        if case .some(let continuation) = waiting { continuation?.resume(throwing: error) }
        body.finish(error)
        stop()
    }

    /// Stops the URLSession task shortly, off this thread, unless it completes first.
    ///
    /// Cancelling a task that is completing at that moment can crash Foundation on Linux (6.3.1);
    /// waiting 50 ms lets short exchanges finish on their own, so only long transfers, which are
    /// not completing, are cancelled.
    private func stop() {
        let task = state.withLock { state -> URLSessionTask? in
            guard !state.stopped, !state.urlSessionCompleted else { return nil }
            state.stopped = true
            return state.task
        }
        guard let task else { return }
        cancelQueue.asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in
            let completed = state.withLock { state in
                defer { state.task = nil }
                return state.urlSessionCompleted
            }
            if !completed { task.cancel() }
        }
    }
}

import Foundation
import NetCore

/// The kind of a session call, which decides what happens to the body and what the response is.
enum SessionCall: Sendable {
    case data
    case download(URL)
    /// An upload; the body replaces the request's own when given.
    case upload(NetworkRequestBody?)
    /// The head, with the body left for the caller to read; `toFile` when the caller writes it
    /// to a file as it arrives (a resumable download).
    case stream(toFile: Bool)

    /// What the call does with the body: what its requests are marked with
    /// (``NetworkRequest/responseBodyUse``).
    var bodyUse: ResponseBodyUse {
        switch self {
        case .data: .inMemory
        case .download, .stream(toFile: true): .toFile
        case .upload, .stream: .streamed
        }
    }

    /// `convertible` as this call sends it, whichever stage gave it (the caller,
    /// `interceptRequest` or a `.retry`): marked with the call's body use; for an upload a bare
    /// URL or URL string is a POST, and a request without a body gets the call's, unless it is a
    /// GET or a HEAD. So a request an interceptor builds anew still carries the upload, as
    /// ALTENNetwork's uploads did (their body went beside the request, not in it), while one given
    /// a body of its own (compressed by an interceptor, say) keeps that; to send one without a
    /// body, give it an empty `.data(Data())`.
    func request(from convertible: any NetworkRequestConvertible) throws -> NetworkRequest {
        var request = try convertible.asNetworkRequest()
        if case .upload(let body) = self {
            if convertible is URL || convertible is String { request.httpMethod = .post }
            if let body, case .none = request.body, request.httpMethod != .get, request.httpMethod != .head {
                request.body = body
            }
        }
        // Set either way: a request taken from an earlier response may carry the mark.
        request.responseBodyUse = bodyUse
        return request
    }

    /// The caller's request for this call, and the call as its later requests see it: an upload
    /// given a body (`from:`, `fromFile:`) sends it in place of the request's own, and one sending
    /// the request's own body (`requestUpload(for:)`) keeps it for requests built anew.
    func starting(with convertible: any NetworkRequestConvertible) throws -> (request: NetworkRequest, call: SessionCall) {
        var request = try self.request(from: convertible)
        guard case .upload(let body) = self else { return (request, self) }
        guard let body else { return (request, .upload(request.body)) }
        request.body = body
        return (request, self)
    }

    /// Thrown if a call ever produced a response of another kind; the loop below cannot do that.
    static let mismatch = NetworkError.transport(.other("internal error: the session produced a response of the wrong kind"))
}

/// A session's settings for one call, read from the actor in one hop: an object, so that each
/// stage of a call that keeps them costs a reference count, not a copy of two existentials and a
/// policy.
final class SessionSettings: Sendable {
    let transport: any Transport
    let maximumRetryCount: Int
    let redirectPolicy: RedirectPolicy
    let timeout: Duration
    let attemptTimeout: Duration?
    let clock: any Clock<Duration>
    /// The interceptors wrapping whole calls, the first outermost (a ``NetworkClient``'s).
    let callInterceptors: [any NetworkCallInterceptor]
    /// Whether anything intercepts attempts: a session's own `interceptRequest` and
    /// `interceptResponse`, or a client's interceptors. Without, a call skips both (a client's
    /// would change nothing), its retry ledger and the metrics copy they would see.
    let observesAttempts: Bool
    /// Whether a call keeps a ``RetryLedger``: only a ``NetworkClient``'s interceptors count their
    /// own retries in it; a session of your own would pay for one per call that nothing reads.
    let keepsRetryLedger: Bool
    /// Whether the clock is `ContinuousClock` (nearly always): checked once here, not by a
    /// dynamic cast in every call. A `Bool`, not the clock: `ContinuousClock` is not `@frozen`, so
    /// an optional one is read through its type's value witnesses.
    let isContinuousClock: Bool
    /// The transport, when nothing in an attempt waits but its exchanges (nothing observes
    /// attempts, or only interceptors whose `interceptRequest` does not wait:
    /// ``RequestInterceptionWithoutWaiting``) and it can stop them on the deadline by itself: its
    /// attempts may then run in the caller's task (``CallDeadline/run(inline:_:)``). Cast once
    /// here, not in every call.
    let deadlineStoppable: (any DeadlineStoppableTransport)?

    init(transport: any Transport, maximumRetryCount: Int, redirectPolicy: RedirectPolicy, timeout: Duration,
         attemptTimeout: Duration?, clock: any Clock<Duration>, callInterceptors: [any NetworkCallInterceptor],
         observesAttempts: Bool, keepsRetryLedger: Bool, attemptsWaitOnlyOnExchanges: Bool) {
        self.transport = transport
        self.maximumRetryCount = maximumRetryCount
        self.redirectPolicy = redirectPolicy
        self.timeout = timeout
        self.attemptTimeout = attemptTimeout
        self.clock = clock
        self.callInterceptors = callInterceptors
        self.observesAttempts = observesAttempts
        self.keepsRetryLedger = keepsRetryLedger
        isContinuousClock = clock is ContinuousClock
        deadlineStoppable = attemptsWaitOnlyOnExchanges ? transport as? any DeadlineStoppableTransport : nil
    }
}

extension NetworkSession {
    /// The settings a call runs with, read from the actor: a session of your own may change them.
    func settings() -> SessionSettings {
        SessionSettings(transport: transport, maximumRetryCount: maximumRetryCount, redirectPolicy: redirectPolicy,
                        timeout: timeout, attemptTimeout: attemptTimeout, clock: clock,
                        callInterceptors: [], observesAttempts: true, keepsRetryLedger: false,
                        attemptsWaitOnlyOnExchanges: false)  // a session's own `interceptRequest` may wait
    }

    /// Every call: the call deadline around the retry loop (see Docs/Architecture.md).
    ///
    /// Nonisolated, like the whole loop: a call visits the actor only to read its settings and
    /// for `interceptRequest`/`interceptResponse`, so concurrent calls of one session do not queue
    /// behind each other for the rest of their work. Inlined into each entry point (`requestData`
    /// and the others): one async frame fewer per call (Benchmarks/NOTEBOOK.md, "Fewer async frames").
    @inline(__always)
    nonisolated func performCall(
        _ convertible: any NetworkRequestConvertible, call: SessionCall, progress report: TransportProgressHandler?
    ) async throws -> CallOutcome {
        let (request, call) = try call.starting(with: convertible)
        let settings: SessionSettings
        // A cast to the one class, not to a protocol, which would look up a conformance per call.
        if let fixed = (self as? NetworkClient)?.fixedSettings {
            settings = fixed
        } else {
            settings = await self.settings()
        }
        if !settings.callInterceptors.isEmpty {
            return try await Self.wrapped(request, in: settings.callInterceptors, from: 0) { request in
                let metrics = CallMetricsRecorder()
                do {
                    let outcome = try await self.runCall(request, call: call, settings: settings, metrics: metrics, progress: report)
                    return NetworkCallResult(outcome: .success(outcome), metrics: outcome.interception.metrics, recorder: metrics)
                } catch {
                    return NetworkCallResult(outcome: .failure(error), metrics: metrics.snapshot(finished: true), recorder: metrics)
                }
            }.outcome.get()
        }
        return try await runCall(request, call: call, settings: settings, metrics: CallMetricsRecorder(), progress: report)
    }

    /// One call's deadline and retry loop, with the session's clock bound when it is not the default.
    /// Inlined into `performCall`: one async frame fewer per call (Benchmarks/NOTEBOOK.md, "Fewer
    /// async frames").
    @inline(__always)
    nonisolated private func runCall(
        _ request: NetworkRequest, call: SessionCall, settings: SessionSettings, metrics: CallMetricsRecorder,
        progress report: TransportProgressHandler?
    ) async throws -> CallOutcome {
        // On the default clock the deadline starts when the metrics do, from one reading.
        let deadline = if settings.isContinuousClock {
            CallDeadline(request: request, timeout: settings.timeout, start: metrics.start, attemptTimeout: settings.attemptTimeout)
        } else {
            CallDeadline(request: request, timeout: settings.timeout, clock: settings.clock, attemptTimeout: settings.attemptTimeout)
        }
        // Bound only when it is not the default, which its readers fall back to: every binding is
        // copied into each attempt's own task.
        guard settings.isContinuousClock else {
            return try await SessionClock.$current.withValue(settings.clock) {
                try await retryLoop(request, call: call, settings: settings, deadline: deadline, metrics: metrics, progress: report)
            }
        }
        return try await retryLoop(request, call: call, settings: settings, deadline: deadline, metrics: metrics, progress: report)
    }

    /// The seed's protocol as one stage: `interceptRequest` before each attempt, one attempt
    /// through the redirect stage and the transport within the call's deadline,
    /// `interceptResponse` after it, and the retry it asks for (after its backoff, on the
    /// session's clock, and never past the deadline).
    ///
    /// No response passes through its frame: an async function's frame is allocated from its
    /// task and kept for as long as the call runs, so every temporary of this loop was held by
    /// every call in flight (7,312 bytes, when the attempt's response and the call's outcome were
    /// values here; 896 at 2111af0, mostly the request, the deadline and the interceptors' decision).
    /// The attempt's response stays in its ``AttemptOutcome``; what reads it and does not wait is
    /// in synchronous functions kept out of line.
    nonisolated private func retryLoop(
        _ callersRequest: NetworkRequest, call: SessionCall, settings: SessionSettings, deadline: CallDeadline,
        metrics: CallMetricsRecorder, progress report: TransportProgressHandler?
    ) async throws -> CallOutcome {
        var request = callersRequest
        let attempt = SessionAttempt(session: settings.observesAttempts ? self : nil, call: call, callersRequest: callersRequest,
                                     transport: settings.transport, redirects: RedirectStage(policy: settings.redirectPolicy),
                                     progress: report, metrics: metrics)
        let ledger = settings.keepsRetryLedger ? RetryLedger() : nil
        var retryNumber = 0
        while true {
            try Task.checkCancellation()
            let staging = DownloadStaging(call: call)
            // One attempt within the deadline: signing (which may wait for a credential
            // refresh), the exchange and, unless the call streams, reading the body.
            let attempted = try await attempt.run(request, retryNumber: retryNumber, within: deadline, staging: staging,
                                                  inline: InlineAttempt.stops(request, on: settings.deadlineStoppable))
            guard settings.observesAttempts else {
                return try CallOutcome.finishing(attempted, staging: staging, metrics: metrics)  // a client without interceptors decides `.nothing`
            }
            let decision: NetworkSessionInterceptionResult
            do {
                decision = try await decide(after: attempted, of: request, retryNumber: retryNumber, ledger: ledger, metrics: metrics)
            } catch {
                staging.discard()
                throw error
            }
            let next: any NetworkRequestConvertible
            var delay: Duration?
            switch decision {
            case .nothing:
                return try CallOutcome.finishing(attempted, staging: staging, metrics: metrics)
            case .retry(let request):
                next = request
            case .retryAfter(let wait, let request):
                next = request
                delay = wait
            }
            // A wait that would outlast the call's deadline gives up now with what the attempt
            // got (a 503 and its Retry-After, say), not with a timeout at the deadline.
            guard retryNumber < settings.maximumRetryCount, (deadline.remaining > (delay ?? .zero)) else {
                return try CallOutcome.finishing(attempted, staging: staging, metrics: metrics)
            }
            metrics.recordRetry(reason: AttemptOutcome.retryReason(attempted), requestedBy: ledger?.lastRequester, delay: delay)
            staging.discard()
            AttemptOutcome.drop(attempted)  // closes a retried stream's connection before the wait
            if let delay, delay > .zero { try await deadline.wait(delay) }
            request = try call.request(from: next)
            retryNumber += 1
        }
    }

    /// `interceptResponse`'s decision on an attempt: it sees the request as sent and the
    /// response with the metrics so far, this attempt's included.
    @inline(never)  // its temporaries stay out of the loop's frame
    nonisolated private func decide(
        after attempted: Result<AttemptOutcome, any Error>, of request: NetworkRequest, retryNumber: Int, ledger: RetryLedger?,
        metrics: CallMetricsRecorder
    ) async throws -> NetworkSessionInterceptionResult {
        let sent = (try? attempted.get())?.sent ?? request
        let seen = AttemptOutcome.seen(attempted, with: metrics.snapshot())
        guard let ledger else {
            return try await interceptResponse(networkSession: self, originalRequest: sent, retryNumber: retryNumber, result: seen)
        }
        return try await RetryLedger.$current.withValue(ledger) {
            try await interceptResponse(networkSession: self, originalRequest: sent, retryNumber: retryNumber, result: seen)
        }
    }
}

/// An error `interceptRequest` threw: it ends the call as it is, without `interceptResponse`.
struct InterceptRequestFailure: Error {
    let error: any Error
}

/// How many retries each interceptor of a ``NetworkClient`` has asked for in the current call, so
/// a budget can count its own (an authentication refresh does not use up ``RetryPolicy``'s).
final class RetryLedger: Sendable {
    /// The current call's ledger.
    @TaskLocal static var current: RetryLedger?
    /// The index of the interceptor being asked about a result.
    @TaskLocal static var asking: Int?

    /// The retries the interceptor being asked has asked for in this call; `fallback` (the
    /// call's retry number) outside a ``NetworkClient`` call.
    static func ownRetries(fallback: Int) -> Int {
        guard let current, let asking else { return fallback }
        return current.retries(of: asking)
    }

    private let counts = Locked<(byInterceptor: [Int: Int], lastRequester: String?)>(([:], nil))

    func retries(of interceptor: Int) -> Int {
        counts.withLock { $0.byInterceptor[interceptor, default: 0] }
    }

    /// The type name of the interceptor that asked for the latest retry.
    var lastRequester: String? { counts.withLock { $0.lastRequester } }

    func recordRetry(by interceptor: Int, named name: String) {
        counts.withLock {
            $0.byInterceptor[interceptor, default: 0] += 1
            $0.lastRequester = name
        }
    }
}

import Foundation
import NetCore

/// One attempt of a session call, as it runs within the deadline (see `NetworkSession.retryLoop`):
/// `interceptRequest`, one exchange through the redirect stage, then the body read whole unless
/// the call streams (its deadline then ends with the head).
///
/// One object per call, not generic: an attempt mostly runs in a new task (all but the ones
/// ``CallDeadline/run(inline:_:)`` runs in the caller's), whose async frames are allocated anew,
/// and a frame over the task allocator's slab (984 bytes) costs a `malloc` of its own. As a
/// method of the session with ten parameters, the attempt's frame held each parameter and the
/// session's generic context (1,648 bytes); this one keeps a reference (the attempt's task
/// captures it with the request, its number and its destination), and the work that does not
/// wait is in synchronous functions (Benchmarks/NOTEBOOK.md, "Async frames under the slab").
final class SessionAttempt: Sendable {
    /// The session whose `interceptRequest` signs each attempt; `nil` when it does not observe
    /// attempts (a `NetworkClient` without interceptors).
    let session: (any NetworkSession)?
    let call: SessionCall
    let callersRequest: NetworkRequest
    let transport: any Transport
    let redirects: RedirectStage
    let progress: TransportProgressHandler?
    let metrics: CallMetricsRecorder

    init(session: (any NetworkSession)?, call: SessionCall, callersRequest: NetworkRequest, transport: any Transport,
         redirects: RedirectStage, progress: TransportProgressHandler?, metrics: CallMetricsRecorder) {
        self.session = session
        self.call = call
        self.callersRequest = callersRequest
        self.transport = transport
        self.redirects = redirects
        self.progress = progress
        self.metrics = metrics
    }

    /// Runs the attempt for `request`, try `retryNumber` of the call, within `deadline` (in the
    /// caller's task when `inline`), its body (unless the call streams) going to `staging`'s
    /// destination: its outcome, or the error it failed with (recorded in the metrics), for the
    /// retry loop to decide on. Throws only what ends the call as it is: cancellation, and an
    /// error `interceptRequest` threw. A failed attempt's staging file is removed.
    ///
    /// The deadline's `run` is inlined here, and on the path that runs the attempt in this task
    /// the attempt's exchange with it: one async frame where there were three (each costs a
    /// task allocation and two executor checks; Benchmarks/NOTEBOOK.md, "Fewer async frames").
    @inline(never)  // its temporaries stay out of the retry loop's frame
    func run(_ request: NetworkRequest, retryNumber: Int, within deadline: CallDeadline, staging: DownloadStaging,
             inline: Bool) async throws -> Result<AttemptOutcome, any Error> {
        do {
            return .success(try await deadline.run(inline: inline) { [self, destination = staging.destination] alarm in
                try await run(request, retryNumber: retryNumber, destination: destination, alarm: alarm)
            })
        } catch {
            return try failed(error, request: request, retryNumber: retryNumber, staging: staging)
        }
    }

    /// What a failed attempt ends as: cancellation and an error `interceptRequest` threw end the
    /// call, anything else is the attempt's failure for the retry loop. Synchronous and out of
    /// line: `CancellationError` is not `@frozen`, and a `catch is CancellationError` in the async
    /// `run` took room for one from the task each time an attempt started (Benchmarks/NOTEBOOK.md,
    /// "Resilient types in async frames").
    @inline(never)
    private func failed(_ error: any Error, request: NetworkRequest, retryNumber: Int,
                        staging: DownloadStaging) throws -> Result<AttemptOutcome, any Error> {
        staging.discard()
        if error is CancellationError { throw CancellationError() }
        if let failure = error as? InterceptRequestFailure { throw failure.error }
        metrics.attemptFailed(error, retryNumber: retryNumber, request: request)
        return .failure(error)
    }

    /// Runs the attempt for `request`, try `retryNumber` of the call, its body (unless the call
    /// streams) going to `destination`; with `alarm` when it runs in the caller's task
    /// (``CallDeadline/run(inline:_:)``).
    func run(_ request: NetworkRequest, retryNumber: Int, destination: TransportBodyDestination,
             alarm: DeadlineAlarm?) async throws -> AttemptOutcome {
        var sent = request
        if let session {
            sent = try await Self.intercepted(request, by: session, in: call)
        } else {
            sent.responseBodyUse = call.bodyUse
        }
        let (response, record) = try await redirects.exchange(sent, through: transport, progress: progress,
                                                              metrics: metrics, retryNumber: retryNumber, alarm: alarm)
        if case .stream = call { return streamed(response, sent: sent) }
        return try await collected(consume response, sent: sent, record: record, destination: destination)
    }

    /// The request after `session`'s `interceptRequest`, as `call` sends it (an interceptor may
    /// have made a new request: see ``SessionCall/request(from:)``); what it threw, wrapped so
    /// that the retry loop ends the call with it as it is.
    @inline(never)
    private static func intercepted(_ request: NetworkRequest, by session: any NetworkSession, in call: SessionCall) async throws -> NetworkRequest {
        do {
            return try call.request(from: await session.interceptRequest(networkSession: session, originalRequest: request))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw InterceptRequestFailure(error: error)
        }
    }

    /// A stream call's outcome: the response to hand over, its head for the interceptors.
    @inline(never)
    private func streamed(_ response: NetworkStreamResponse, sent: NetworkRequest) -> AttemptOutcome {
        let stream = NetworkStreamResponse(response: response.response, body: response.body, originalRequest: callersRequest)
        var head = NetworkDataResponse(data: Data(), response: response.response, originalRequest: callersRequest)
        head.bodyIsStreamed = true
        return AttemptOutcome(sent: sent, interception: .data(head), stream: stream)
    }

    /// The outcome of a call that reads the body whole: into memory or to the call's file.
    /// Inlined into the attempt: one async frame fewer ("Fewer async frames").
    @inline(__always)
    private func collected(_ response: consuming NetworkStreamResponse, sent: NetworkRequest, record: ExchangeMetricsRecorder?,
                           destination: TransportBodyDestination) async throws -> AttemptOutcome {
        let collector = BodyCollector(destination: destination, limit: transport.responseLimits.maximumInMemoryBodySize,
                                      progress: progress)
        let collected = try await collector.collect(consume response)
        record?.bodyCompleted(bytes: collected.bodyByteCount)
        return AttemptOutcome(sent: sent, interception: interception(collected, sent: sent), stream: nil)
    }

    /// What the interceptors see of a body read whole.
    private func interception(_ collected: TransportResponse, sent: NetworkRequest) -> NetworkSessionInterception {
        switch call {
        case .data, .stream:
            return .data(NetworkDataResponse(data: collected.body, response: collected.head, originalRequest: callersRequest))
        case .download(let destination):
            let url = collected.fileURL ?? destination
            return .download(NetworkDownloadResponse(url: url, response: collected.head, originalRequest: callersRequest))
        case .upload:
            let uploadType: NetworkUploadResponse.UploadType = switch sent.body {
            case .none: .data(Data())
            case .data(let data): .data(data)
            case .file(let url): .file(url)
            case .stream(let stream): .stream(length: stream.length)
            }
            return .upload(NetworkUploadResponse(data: collected.body, response: collected.head,
                                                 originalRequest: callersRequest, uploadType: uploadType))
        }
    }
}

/// What one attempt produced, handed from its task to the retry loop as one reference: a task's
/// result is copied out through its type's value witnesses, field by field for a tuple of structs.
final class AttemptOutcome: Sendable {
    /// The request as sent, after `interceptRequest`.
    let sent: NetworkRequest
    private let parts: Locked<(interception: NetworkSessionInterception, stream: NetworkStreamResponse?)?>

    init(sent: NetworkRequest, interception: consuming NetworkSessionInterception, stream: consuming NetworkStreamResponse?) {
        self.sent = sent
        parts = Locked((interception, stream))
    }

    /// What `interceptResponse` sees of an attempt: a copy of its response, carrying `metrics`,
    /// or its error.
    @inline(never)  // the parts it reads, 312 bytes, stay out of the async frames that call it
    static func seen(_ attempted: Result<AttemptOutcome, any Error>, with metrics: NetworkMetrics) -> Result<NetworkSessionInterception, any Error> {
        attempted.flatMap { outcome in
            guard let interception = outcome.parts.withLock({ $0?.interception }) else {
                return .failure(NetworkError.transport(.other("internal error: an attempt's response was taken before it was seen")))
            }
            return .success(interception.with(metrics))
        }
    }

    /// Why an attempt is retried, for the metrics: its status code, or its error's type.
    @inline(never)  // the parts it reads, 312 bytes, stay out of the async frames that call it
    static func retryReason(_ attempted: Result<AttemptOutcome, any Error>) -> String {
        switch attempted {
        case .success(let outcome):
            // Taken only once the loop is done with the attempt, so never before this.
            outcome.parts.withLock { $0.map { String($0.interception.statusCode.rawValue) } } ?? "taken"
        case .failure(let error): NetworkMetrics.errorType(of: error)
        }
    }

    /// Drops a retried attempt's response: a stream's body is closed, and with it its connection.
    @inline(never)  // the parts it reads, 312 bytes, stay out of the async frames that call it
    static func drop(_ attempted: Result<AttemptOutcome, any Error>) {
        if case .success(let outcome) = attempted { _ = outcome.parts.withLock { $0.take() } }
    }

    /// The response, and a stream call's response with its body not yet read, moved out (a copy
    /// would retain each reference they hold; the loop takes them once); thrown as an internal
    /// error if already taken, which the loop never does.
    func take() throws -> (interception: NetworkSessionInterception, stream: NetworkStreamResponse?) {
        guard let parts = parts.withLock({ $0.take() }) else {
            throw NetworkError.transport(.other("internal error: an attempt's response was taken twice"))
        }
        return parts
    }
}

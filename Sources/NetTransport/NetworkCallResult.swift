import NetCore

/// What a whole call produced, as a ``NetworkCallInterceptor`` sees it: the final head or the
/// error the call ends with, and the call's ``NetworkMetrics`` either way. For `requestStream`
/// the result comes at the head, with the body still the caller's to read
/// (``streamsBody``): ``whenFinished(_:)`` tells when the call is over.
public struct NetworkCallResult: Sendable {
    let outcome: Result<CallOutcome, any Error>
    /// The call's recorder, to finish its metrics when a streamed body ends.
    let recorder: CallMetricsRecorder?

    /// The call's attempts, phase times, retries and duration, whether it succeeded or failed
    /// (for `requestStream`, up to the head).
    public let metrics: NetworkMetrics

    init(outcome: Result<CallOutcome, any Error>, metrics: NetworkMetrics, recorder: CallMetricsRecorder? = nil) {
        self.outcome = outcome
        self.metrics = metrics
        self.recorder = recorder
    }

    /// The final response's status, headers and URL; `nil` if the call failed.
    public var response: NetworkResponseHead? { try? outcome.get().interception.response }

    /// What the call failed with (thrown to the caller once the interceptors return); `nil` if
    /// it succeeded.
    public var error: (any Error)? {
        guard case .failure(let error) = outcome else { return nil }
        return error
    }

    /// Whether the response's body is still to be read by the caller (`requestStream`): the call
    /// is over only when that body ends, fails or is dropped.
    public var streamsBody: Bool {
        guard case .success(.stream) = outcome else { return false }
        return true
    }

    /// This result, with `handler` run once when the call is over: at once (before this returns)
    /// for a call that failed or whose body the session read (`requestData`, downloads,
    /// uploads); for `requestStream`, when the caller has read the body to its end, its reading
    /// has failed, or the body was dropped (or its reading task cancelled). Return the result
    /// this gives: the handler rides on its body, and a result this gives that is then dropped
    /// ends the body as dropped, closing the caller's stream before it is read.
    ///
    /// ```swift
    /// struct StreamTimer: NetworkCallInterceptor {
    ///     let report: @Sendable (String) -> Void
    ///     func interceptCall(
    ///         _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
    ///     ) async throws -> NetworkCallResult {
    ///         await proceed(request).whenFinished { end in
    ///             let bytes = end.metrics.attempts.last?.responseBodyBytes ?? 0
    ///             report("\(request.httpMethod): \(bytes) bytes in \(end.metrics.duration ?? .zero)")
    ///         }
    ///     }
    /// }
    /// ```
    public func whenFinished(_ handler: @escaping @Sendable (NetworkCallEnd) -> Void) -> NetworkCallResult {
        guard case .success(.stream(let stream, let head)) = outcome else {
            handler(NetworkCallEnd(response: response, metrics: metrics, error: error, bodyDropped: false))
            return self
        }
        let recorder = recorder
        let metricsAtHead = metrics
        // A body the transport handed over whole had ended before the caller saw it: dropping it
        // unread closes nothing and loses nothing (an empty answer a generated client never reads).
        let wholeSize: Int64? = if case .whole(let data) = stream.body.storage { Int64(data.count) } else { nil }
        var finishing = stream
        finishing.body = stream.body.onEnding { ending in
            var ending = ending
            if case .dropped = ending, let wholeSize { ending = .finished(bytes: wholeSize) }
            var metrics = metricsAtHead
            if let recorder {
                if case .finished(let bytes) = ending { recorder.lastAttemptBodyCompleted(bytes: bytes) }
                metrics = recorder.snapshot(finished: true)
            }
            // A reader cancelled is how a caller stops a stream (Docs/Sessions.md): a drop, not a failure.
            let error: (any Error)? = if case .failed(let error) = ending, !(error is CancellationError) { error } else { nil }
            let dropped = switch ending {
            case .dropped: true
            case .failed(let error): error is CancellationError
            case .finished: false
            }
            handler(NetworkCallEnd(response: head.response, metrics: metrics, error: error, bodyDropped: dropped))
        }
        return NetworkCallResult(outcome: .success(.stream(finishing, head: head)), metrics: metrics, recorder: recorder)
    }
}

/// How a call ended, as ``NetworkCallResult/whenFinished(_:)`` reports it.
public struct NetworkCallEnd: Sendable {
    /// The final response's status, headers and URL; `nil` if the call failed before one.
    public let response: NetworkResponseHead?
    /// The call's metrics at its end. For `requestStream`: `duration` runs until the body ended
    /// or was dropped, and a body read to its end gives the last attempt its `bodyComplete`
    /// phase and `responseBodyBytes`.
    public let metrics: NetworkMetrics
    /// What the call failed with: its own error, or its body's (a read that failed, a length
    /// cut short, a limit passed); `nil` if it succeeded or its body was dropped.
    public let error: (any Error)?
    /// Whether a streamed body was dropped before its end, or its reading task cancelled: the
    /// caller stopped reading, and its connection was closed. (A body the transport had received
    /// whole before handing it over ends as read when dropped: nothing was left to read.)
    public let bodyDropped: Bool
}

import Foundation
import NetCore

/// Collects one call's ``NetworkMetrics`` as it runs: the session's loop starts it, the redirect
/// stage opens an ``ExchangeMetricsRecorder`` per request, the loop notes each retry, and every
/// response the call hands out carries a snapshot.
///
/// Times are `ContinuousClock` offsets from the call's start: measurements, not logic, so they do
/// not follow a session's injected clock. One object holding its lock inline, so a call's metrics
/// cost one allocation besides the attempts' array.
package final class CallMetricsRecorder: Sendable {
    /// When the call started, which its deadline on the default clock shares.
    let start = ContinuousReading.now
    private let state = Locked(NetworkMetrics(startDate: Date()))

    package init() {}

    /// How long since the call started.
    package var elapsed: Duration { start.elapsed }

    /// Opens the record of one request about to be sent.
    @inline(never)  // inlined, its 300-byte record would sit in the async frame of its caller (the redirect stage)
    func beginExchange(_ request: NetworkRequest, retryNumber: Int, redirectNumber: Int) -> ExchangeMetricsRecorder {
        let started = elapsed
        // Made inside the lock, so that it is moved into the array rather than copied.
        let index = state.withLock { metrics in
            metrics.attempts.append(NetworkMetrics.Attempt(retryNumber: retryNumber, redirectNumber: redirectNumber,
                                                           method: request.httpMethod, url: request.url,
                                                           secretQueryKeys: request.secretQueryKeys, started: started))
            return metrics.attempts.count - 1
        }
        return ExchangeMetricsRecorder(call: self, index: index)
    }

    /// Changes the record of attempt `index`.
    func update(_ index: Int, _ change: @Sendable (inout NetworkMetrics.Attempt) -> Void) {
        state.withLock { change(&$0.attempts[index]) }
    }

    /// Notes what try `retryNumber` failed with, on its last request; a try that failed before
    /// sending one (while signing, say) gets a record of its own with no phases, so a retry
    /// after it has an attempt to follow.
    @inline(never)  // off the hot path; its temporaries stay out of the async frames that call it
    func attemptFailed(_ error: any Error, retryNumber: Int, request: NetworkRequest) {
        let type = NetworkMetrics.errorType(of: error)
        let now = elapsed
        state.withLock { metrics in
            if let last = metrics.attempts.indices.last, metrics.attempts[last].retryNumber == retryNumber {
                metrics.attempts[last].errorType = type
                return
            }
            var attempt = NetworkMetrics.Attempt(retryNumber: retryNumber, redirectNumber: 0, method: request.httpMethod,
                                                 url: request.url, secretQueryKeys: request.secretQueryKeys, started: now)
            attempt.errorType = type
            metrics.attempts.append(attempt)
        }
    }

    /// Notes a retry after the latest attempt, for `reason`: the status code or the type of error
    /// that attempt ended with.
    func recordRetry(reason: String, requestedBy: String?, delay: Duration?) {
        state.withLock { metrics in
            metrics.retries.append(NetworkMetrics.Retry(afterAttempt: metrics.attempts.count - 1, reason: reason,
                                                        requestedBy: requestedBy, delay: delay))
        }
    }

    /// A streamed body was read to its end: `bytes` of it, on the call's last attempt (the one
    /// whose response the caller read).
    func lastAttemptBodyCompleted(bytes: Int64) {
        let now = elapsed
        state.withLock { metrics in
            guard let last = metrics.attempts.indices.last, metrics.attempts[last].phases[.bodyComplete] == nil else { return }
            metrics.attempts[last].phases[.bodyComplete] = now
            metrics.attempts[last].responseBodyBytes = bytes
        }
    }

    /// The metrics so far; with `finished`, the call's duration is set to now.
    func snapshot(finished: Bool = false) -> NetworkMetrics {
        let now = finished ? elapsed : nil
        return state.withLock { metrics in
            if let now { metrics.duration = now }
            return metrics
        }
    }
}

/// The record of one request on the wire. Transports (and the concurrency limit) find it as
/// ``current`` while their `exchange` runs and report the phases only they can see; a transport
/// that reports nothing leaves those phases absent.
package struct ExchangeMetricsRecorder: Sendable {
    /// The exchange being made in this task, bound by the redirect stage around each
    /// `Transport.exchange` of a session call (``ExchangeScope``); `nil` outside one.
    package static var current: ExchangeMetricsRecorder? { ExchangeScope.current?.record }

    private let call: CallMetricsRecorder
    private let index: Int

    init(call: CallMetricsRecorder, index: Int) {
        self.call = call
        self.index = index
    }

    /// Notes that `phase` ended now (the first report of a phase counts).
    package func reached(_ phase: NetworkMetrics.Phase) {
        let now = call.elapsed
        call.update(index) { attempt in
            if attempt.phases[phase] == nil { attempt.phases[phase] = now }
        }
    }

    /// Notes how many request body bytes have been handed to the connection so far.
    package func sentRequestBody(bytes: Int64) {
        call.update(index) { $0.requestBodyBytes = bytes }
    }

    /// The head arrived: its status, where it came from, and (unless the transport saw it sooner)
    /// the first-byte time.
    func received(_ head: NetworkResponseHead) {
        let call = call
        call.update(index) { attempt in
            attempt.statusCode = head.statusCode
            attempt.cacheStatus = head.cacheStatus
            // The clock is read only when the transport did not note the first byte itself
            // (AsyncHTTPClientTransport's delegate API does): a reading costs about 25 ns.
            if attempt.phases[.firstByte] == nil { attempt.phases[.firstByte] = call.elapsed }
        }
    }

    /// The body was read to its end: `bytes` of it.
    func bodyCompleted(bytes: Int64) {
        let now = call.elapsed
        call.update(index) { attempt in
            attempt.phases[.bodyComplete] = now
            attempt.responseBodyBytes = bytes
        }
    }
}

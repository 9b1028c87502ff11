#if Observability  // the package trait: without it this file compiles to nothing
import Foundation
import NetCore
@_spi(NetInternals) import NetTransport
import Tracing

/// One call as an ``ObservabilityInterceptor`` follows it: the call's span, the attempt in flight
/// (a call's attempts run one after another) and the header fields its trace context took.
/// Bound as a task-local around the call, so the interceptor's per-attempt methods, which run in
/// the call's tasks, find it.
final class CallObservation: Sendable {
    @TaskLocal static var current: CallObservation?

    /// An attempt in flight: its span and when it started.
    struct Attempt: Sendable {
        /// `nil` when the call is not traced (``ObservabilityInterceptor`` with `NoOpTracer`).
        let span: (any Span)?
        let start: ContinuousClock.Instant
    }

    private struct State: Sendable {
        var attempt: Attempt?
        var injected: [String] = []
    }

    /// `nil` when the call is not traced (``ObservabilityInterceptor`` with `NoOpTracer`).
    let span: (any Span)?
    /// The call's request's method and URL, and the metric objects of where it went.
    let method: NetworkHttpMethod
    let url: URL
    let target: TargetInstruments
    private let state = Locked(State())

    init(span: (any Span)?, request: NetworkRequest, target: TargetInstruments) {
        self.span = span
        method = request.httpMethod
        url = request.url
        self.target = target
    }

    /// Whether `request` goes where the call did, so that the call's instruments are its own.
    func sameTarget(as request: NetworkRequest) -> Bool {
        request.httpMethod == method && request.url == url
    }

    /// Starts `attempt`; returns the header fields the previous attempt's context took, which
    /// the new request must not carry on (and which are then forgotten). An attempt whose result
    /// never came back to this interceptor ends here.
    @discardableResult
    func begin(_ attempt: Attempt) -> [String] {
        let (unfinished, injected) = state.withLock { state in
            defer {
                state.attempt = attempt
                state.injected = []
            }
            return (state.attempt, state.injected)
        }
        unfinished?.span?.end()
        return injected
    }

    /// The header fields the current attempt's context took.
    func injected(_ names: [String]) {
        state.withLock { $0.injected = names }
    }

    /// The attempt in flight, which is then over.
    func end() -> Attempt? {
        state.withLock { state in
            defer { state.attempt = nil }
            return state.attempt
        }
    }
}
#endif

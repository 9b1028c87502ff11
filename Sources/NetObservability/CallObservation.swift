#if Observability  // the package trait: without it this file compiles to nothing
import NetTransport
import Tracing

/// One call as an ``ObservabilityInterceptor`` follows it: the call's span and the attempt in
/// flight (a call's attempts run one after another). Bound as a task-local around the call, so
/// the interceptor's per-attempt methods, which run in the call's tasks, find it.
final class CallObservation: Sendable {
    @TaskLocal static var current: CallObservation?

    /// An attempt in flight: its span and when it started.
    struct Attempt: Sendable {
        let span: any Span
        let start: ContinuousClock.Instant
    }

    let span: any Span
    private let attempt = Locked<Attempt?>(nil)
    private let injected = Locked<[String]>([])

    init(span: any Span) {
        self.span = span
    }

    /// The header fields the tracer wrote into the latest attempt's request.
    var injectedFieldNames: [String] { injected.withLock { $0 } }

    func begin(_ attempt: Attempt, injected names: [String]) {
        injected.withLock { $0 = names }
        let unfinished = self.attempt.withLock { current in
            defer { current = attempt }
            return current
        }
        // An attempt whose result never came back (a later interceptor threw before it was sent).
        unfinished?.span.end()
    }

    /// The attempt in flight, which is then over.
    func end() -> Attempt? {
        attempt.withLock { current in
            defer { current = nil }
            return current
        }
    }
}
#endif

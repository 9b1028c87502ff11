#if Observability  // the package trait: without it this file compiles to nothing
import Foundation
import Instrumentation
import Logging
import Metrics
import NetCore
import NetTransport
import Tracing

/// Logs, measures and traces every call of a ``NetworkClient`` through the server-side Swift
/// ecosystem's APIs: swift-log, swift-metrics and swift-distributed-tracing, named after
/// OpenTelemetry's HTTP client conventions.
///
/// ```swift
/// let client = NetworkClient(
///     transport: URLSessionTransport(),
///     interceptors: [RetryPolicy(), ObservabilityInterceptor(logger: Logger(label: "api"))])
/// ```
///
/// Per call it starts a client span (a child of the task's `ServiceContext`), counts it in
/// `http.client.active_requests`, and logs one line at ``callLogLevel``. Per attempt (each retry;
/// redirects are events of their attempt) it starts a child span, injects its context into the
/// request's header fields through the tracer (`traceparent`/`tracestate` with an OpenTelemetry
/// tracer), records `http.client.request.duration`, and logs one line at ``attemptLogLevel``. URLs
/// are redacted as everywhere in Net. Place it last among the interceptors, so it sees the
/// request as sent and every attempt's own result. It does nothing outside a `NetworkClient`.
///
/// With swift-distributed-tracing's `NoOpTracer` (the default when no tracer is bootstrapped)
/// it starts no spans, binds no `ServiceContext` and injects nothing: those would all be
/// discarded. Logs and metrics are unchanged.
public struct ObservabilityInterceptor: NetworkCallInterceptor {
    /// Where the lines go; `nil` for no logging.
    public var logger: Logger? { settings.logger }
    /// The level of the one line per call.
    public var callLogLevel: Logger.Level { settings.callLogLevel }
    /// The level of the one line per attempt.
    public var attemptLogLevel: Logger.Level { settings.attemptLogLevel }
    /// Where metrics go; `nil` for `MetricsSystem.factory`, read per call: the bootstrapped one,
    /// or one bound to the task with `withMetricsFactory`.
    public var metricsFactory: (any MetricsFactory)? { settings.metricsFactory }
    /// What starts spans; `nil` for the one bootstrapped with `InstrumentationSystem`, read per call.
    public var tracer: (any Tracer)? { settings.tracer }

    /// Everything above in one object: the chain copies its interceptors with every call, and a
    /// copy is then one reference, not a logger and two existentials.
    private final class Settings: Sendable {
        let logger: Logger?
        let callLogLevel: Logger.Level
        let attemptLogLevel: Logger.Level
        let metricsFactory: (any MetricsFactory)?
        let tracer: (any Tracer)?
        /// The metric objects of the targets called so far.
        let instruments = InstrumentTable()
        /// `metricsFactory`'s identity, taken once: the table is only ever asked with it. (For a
        /// value factory it is a freed box's, and no entry is ever made for a value factory.)
        let factoryIdentity: ObjectIdentifier?

        init(logger: Logger?, callLogLevel: Logger.Level, attemptLogLevel: Logger.Level, metricsFactory: (any MetricsFactory)?,
             tracer: (any Tracer)?) {
            self.logger = logger
            self.callLogLevel = callLogLevel
            self.attemptLogLevel = attemptLogLevel
            self.metricsFactory = metricsFactory
            self.tracer = tracer
            factoryIdentity = metricsFactory.map { ObjectIdentifier($0 as AnyObject) }
        }
    }

    private let settings: Settings

    /// Creates the interceptor; by default it logs to `Logger(label: "net")` and uses the
    /// bootstrapped metrics and tracing backends.
    public init(
        logger: Logger? = Logger(label: "net"), callLogLevel: Logger.Level = .info, attemptLogLevel: Logger.Level = .debug,
        metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil
    ) {
        settings = Settings(logger: logger, callLogLevel: callLogLevel, attemptLogLevel: attemptLogLevel,
                            metricsFactory: metricsFactory, tracer: tracer)
    }

    private var currentTracer: any Tracer { tracer ?? InstrumentationSystem.tracer }

    /// Whether `tracer` keeps what it is given: `NoOpTracer`'s spans and context are discarded.
    /// The type compared, not cast: a cast looks up a conformance on every call.
    private static func traces(with tracer: any Tracer) -> Bool {
        ObjectIdentifier(type(of: tracer)) != ObjectIdentifier(NoOpTracer.self)
    }

    /// The instruments of `request`'s target, from the factory given or the one `MetricsSystem`
    /// gives this call (bootstrapped, or bound to the task with `withMetricsFactory`).
    private func instruments(for request: NetworkRequest) -> TargetInstruments {
        if let factory = settings.metricsFactory, let identity = settings.factoryIdentity {
            return settings.instruments.instruments(for: request, factory: factory, identity: identity)
        }
        return settings.instruments.instruments(for: request, factory: MetricsSystem.factory)
    }

    /// The call's span, its count among active requests, and its log line, each ended when the
    /// call is over: for `requestStream`, when its body ends, fails or is dropped.
    public func interceptCall(
        _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
    ) async throws -> NetworkCallResult {
        let target = instruments(for: request)
        target.activeRequests.increment(by: 1)
        let tracer = currentTracer
        let span = Self.traces(with: tracer)
            ? tracer.startSpan(HTTPClientConventions.spanName(of: request), context: ServiceContext.current ?? .topLevel, ofKind: .client) : nil
        if let span, span.isRecording { span.attributes = HTTPClientConventions.spanAttributes(of: request) }
        let call = CallObservation(span: span, request: request, target: target)
        let start = ContinuousClock.now
        let result = await CallObservation.$current.withValue(call) {
            guard let span else { return await proceed(request) }
            return await ServiceContext.$current.withValue(span.context) { await proceed(request) }
        }
        // An attempt whose result this interceptor did not see (the call failed while it ran, or
        // an interceptor after this one asked for a retry the budget then refused) ends with the
        // call's outcome.
        if let attempt = call.end(), let span = attempt.span {
            HTTPClientConventions.finish(span, status: result.response?.statusCode, error: result.error)
            span.end()
        }
        // A stream's handler lives as long as its body: it keeps the request without its body.
        let described = result.streamsBody ? request.withoutBody : request
        return result.whenFinished { end in
            target.activeRequests.decrement(by: 1)
            finishCall(call, request: described, end: end, duration: ContinuousClock.now - start)
        }
    }

    /// Starts the attempt's span and puts its trace context into the request's header fields.
    public func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
        guard let call = CallObservation.current else { return request }
        guard let callSpan = call.span else {
            call.begin(CallObservation.Attempt(span: nil, start: .now))  // nothing injected to remove
            return request
        }
        var request = request
        let tracer = currentTracer
        let span = tracer.startSpan(HTTPClientConventions.spanName(of: request), context: callSpan.context, ofKind: .client)
        if span.isRecording { span.attributes = HTTPClientConventions.spanAttributes(of: request) }
        // A retry's request carries the previous attempt's fields; none of them may survive
        // into this attempt's context.
        let previous = call.begin(CallObservation.Attempt(span: span, start: .now))
        for name in previous { request.headers.remove(name: name) }
        var carrier = TraceContextCarrier(headers: request.headers)
        tracer.inject(span.context, into: &carrier, using: TraceContextInjector())
        // Left alone when the tracer wrote nothing (a no-op tracer): setting the fields would
        // copy the request's storage, which the caller still holds.
        if !carrier.written.isEmpty {
            request.headers = carrier.headers
            call.injected(carrier.written)
        }
        if !carrier.rejected.isEmpty {
            logger?.warning("the tracer's context fields \(carrier.rejected) are not valid header fields and were not sent",
                            metadata: HTTPClientConventions.metadata(of: request))
        }
        return request
    }

    /// Ends the attempt's span, records its duration and logs it. Never asks for a retry.
    public func interceptResponse(
        _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult {
        guard let call = CallObservation.current, let attempt = call.end() else { return .nothing }
        let duration = ContinuousClock.now - attempt.start
        let (status, error): (HTTPCode?, (any Error)?) = switch result {
        case .success(let response): (response.statusCode, nil)
        case .failure(let failure): (nil, failure)
        }
        if let span = attempt.span {
            finishAttempt(span, retryNumber: retryNumber, result: result, status: status, error: error)
        }
        // The call's instruments, when the attempt goes where the call did (an interceptor before
        // this one may have sent it elsewhere).
        let target = call.sameTarget(as: request) ? call.target : instruments(for: request)
        target.duration(status: status, errorType: HTTPClientConventions.errorTypeValue(status: status, error: error))
            .recordNanoseconds(duration.wholeNanoseconds)
        if let logger, logger.logLevel <= attemptLogLevel {
            var metadata = HTTPClientConventions.metadata(of: request)
            metadata[HTTPClientConventions.resendCount] = .stringConvertible(retryNumber)
            log(to: logger, level: attemptLogLevel, what: "\(request.httpMethod) \(request.redactedURL) attempt \(retryNumber + 1)",
                status: status, error: error, duration: duration, metadata: metadata)
        }
        return .nothing
    }

    /// Ends an attempt's span: its resend count, its redirects as events, its outcome.
    private func finishAttempt(
        _ span: any Span, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>, status: HTTPCode?, error: (any Error)?
    ) {
        if retryNumber > 0, span.isRecording { span.attributes[HTTPClientConventions.resendCount] = Int64(retryNumber) }
        if span.isRecording, case .success(let response) = result {
            for hop in response.metrics.attempts where hop.retryNumber == retryNumber && hop.redirectNumber > 0 {
                span.addEvent(SpanEvent(name: "redirect", attributes: [HTTPClientConventions.fullURL: .string(hop.redactedURL)]))
            }
        }
        HTTPClientConventions.finish(span, status: status, error: error)
        span.end()
    }

    private func finishCall(_ call: CallObservation, request: NetworkRequest, end: NetworkCallEnd, duration: Duration) {
        let (status, error, metrics) = (end.response?.statusCode, end.error, end.metrics)
        if let span = call.span {
            if span.isRecording {
                span.attributes["net.attempt_count"] = Int64(metrics.retries.count + 1)
                span.attributes["net.redirect_count"] = Int64(metrics.redirectCount)
                if end.bodyDropped { span.attributes[Self.bodyDropped] = true }
            }
            HTTPClientConventions.finish(span, status: status, error: error)
            span.end()
        }
        guard let logger, logger.logLevel <= callLogLevel else { return }
        var metadata = HTTPClientConventions.metadata(of: request)
        metadata["net.attempts"] = .stringConvertible(metrics.retries.count + 1)
        metadata["net.redirects"] = .stringConvertible(metrics.redirectCount)
        if let cache = metrics.cacheStatus { metadata["net.cache_status"] = .string("\(cache)") }
        if end.bodyDropped { metadata[Self.bodyDropped] = "true" }
        log(to: logger, level: callLogLevel, what: "\(request.httpMethod) \(request.redactedURL)",
            status: status, error: error, duration: duration, metadata: metadata)
    }

    /// Set on a call's log line and span when the caller dropped a streamed body before its end.
    static let bodyDropped = "net.body_dropped"

    private func log(
        to logger: Logger, level: Logger.Level, what: String, status: HTTPCode?, error: (any Error)?, duration: Duration,
        metadata: Logger.Metadata
    ) {
        var metadata = metadata
        let milliseconds = duration.millisecondsText
        metadata["net.duration_ms"] = .string(milliseconds)
        if let status { metadata[HTTPClientConventions.statusCode] = .stringConvertible(status.rawValue) }
        if let type = HTTPClientConventions.errorTypeValue(status: status, error: error) { metadata[HTTPClientConventions.errorType] = .string(type) }
        let outcome = if let status { "→ \(status.rawValue)" } else { "failed (\(error.map { NetworkMetrics.errorType(of: $0) } ?? "unknown"))" }
        logger.log(level: level, "\(what) \(outcome) in \(milliseconds) ms", metadata: metadata)
    }
}

/// Its `interceptRequest` starts a span and returns: its attempts may run in the caller's task.
extension ObservabilityInterceptor: RequestInterceptionWithoutWaiting {}
#endif

import NetCore

/// A ``NetworkInterceptor`` that also wraps each whole call: from before the first attempt to the
/// response handed over, retries, redirects and backoff waits included. One log line, one timer
/// or one trace span per call belongs here (OkHttp's application interceptor).
///
/// In a ``NetworkClient`` the call interceptors nest in list order, the first outermost, inside
/// the call deadline's start and around the attempts; each must call `proceed` exactly once (with
/// the request, changed or not) and return what it gives, or throw. Task-local values bound
/// around `proceed` (a trace's `ServiceContext`) reach every attempt, so this interceptor's own
/// ``NetworkInterceptor/interceptRequest(_:)`` and ``NetworkInterceptor/interceptResponse(_:retryNumber:result:)``
/// can find the call they belong to.
///
/// ```swift
/// struct CallTimer: NetworkCallInterceptor {
///     let report: @Sendable (String) -> Void
///     func interceptCall(
///         _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async throws -> NetworkCallResult
///     ) async throws -> NetworkCallResult {
///         let result = try await proceed(request)
///         report("\(request.httpMethod) → \(result.response.statusCode) in \(result.metrics.duration ?? .zero)")
///         return result
///     }
/// }
/// ```
public protocol NetworkCallInterceptor: NetworkInterceptor {
    /// Runs one call by calling `proceed` once, and returns its result (or throws).
    func interceptCall(
        _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async throws -> NetworkCallResult
    ) async throws -> NetworkCallResult
}

/// What a whole call produced, as a ``NetworkCallInterceptor`` sees it: the final head and the
/// call's ``NetworkMetrics``. For `requestStream` the call ends at the head; the body is the
/// caller's to read.
public struct NetworkCallResult: Sendable {
    let outcome: CallOutcome

    /// The final response's status, headers and URL.
    public var response: NetworkResponseHead { outcome.interception.response }
    /// The call's attempts, phase times, retries and duration.
    public var metrics: NetworkMetrics { outcome.interception.metrics }
}

/// A session whose calls are wrapped by call interceptors (``NetworkClient``).
protocol CallWrapping: Sendable {
    /// In order, the first outermost; empty when none of the interceptors wraps calls.
    var callInterceptors: [any NetworkCallInterceptor] { get }
}

extension NetworkSession {
    /// Runs `call` through `interceptors[index...]`, innermost last.
    nonisolated static func wrapped(
        _ request: NetworkRequest, in interceptors: [any NetworkCallInterceptor], from index: Int,
        call: @escaping @Sendable (NetworkRequest) async throws -> CallOutcome
    ) async throws -> NetworkCallResult {
        guard index < interceptors.count else { return NetworkCallResult(outcome: try await call(request)) }
        return try await interceptors[index].interceptCall(request) { request in
            try await wrapped(request, in: interceptors, from: index + 1, call: call)
        }
    }
}

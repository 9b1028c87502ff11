import NetCore

/// A ``NetworkInterceptor`` that also wraps each whole call: from before the first attempt to the
/// response handed over, retries, redirects and backoff waits included. One log line, one timer
/// or one trace span per call belongs here (OkHttp's application interceptor).
///
/// In a ``NetworkClient`` the call interceptors nest in list order, the first outermost, around
/// the call deadline and the attempts. Each must call `proceed` exactly once (with the request,
/// changed or not) and return what it gives, or throw an error of its own. `proceed` does not
/// throw: a failed call comes back as a result with an ``NetworkCallResult/error``, so its
/// metrics can be seen too. Task-local values bound around `proceed` (a trace's
/// `ServiceContext`) reach every attempt, so this interceptor's own
/// ``NetworkInterceptor/interceptRequest(_:)`` and
/// ``NetworkInterceptor/interceptResponse(_:retryNumber:result:)`` can find the call they
/// belong to.
///
/// ```swift
/// struct CallTimer: NetworkCallInterceptor {
///     let report: @Sendable (String) -> Void
///     func interceptCall(
///         _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
///     ) async throws -> NetworkCallResult {
///         let result = await proceed(request)
///         let outcome = result.response.map { "\($0.statusCode)" } ?? "failed"
///         report("\(request.httpMethod) → \(outcome) in \(result.metrics.duration ?? .zero)")
///         return result
///     }
/// }
/// ```
public protocol NetworkCallInterceptor: NetworkInterceptor {
    /// Runs one call by calling `proceed` once, and returns its result (or throws).
    func interceptCall(
        _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
    ) async throws -> NetworkCallResult
}

extension NetworkSession {
    /// Runs `call` through `interceptors[index...]`, innermost last.
    nonisolated static func wrapped(
        _ request: NetworkRequest, in interceptors: [any NetworkCallInterceptor], from index: Int,
        call: @escaping @Sendable (NetworkRequest) async -> NetworkCallResult
    ) async throws -> NetworkCallResult {
        guard index < interceptors.count else { return await call(request) }
        return try await interceptors[index].interceptCall(request) { request in
            do {
                return try await wrapped(request, in: interceptors, from: index + 1, call: call)
            } catch {
                // An inner interceptor threw: the call fails with its error, the metrics unknown.
                return NetworkCallResult(outcome: .failure(error), metrics: NetworkMetrics())
            }
        }
    }
}

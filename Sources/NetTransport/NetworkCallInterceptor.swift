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

/// What a whole call produced, as a ``NetworkCallInterceptor`` sees it: the final head or the
/// error the call ends with, and the call's ``NetworkMetrics`` either way. For `requestStream`
/// the call ends at the head; the body is the caller's to read.
public struct NetworkCallResult: Sendable {
    let outcome: Result<CallOutcome, any Error>

    /// The call's attempts, phase times, retries and duration, whether it succeeded or failed.
    public let metrics: NetworkMetrics

    /// The final response's status, headers and URL; `nil` if the call failed.
    public var response: NetworkResponseHead? { try? outcome.get().interception.response }

    /// What the call failed with (thrown to the caller once the interceptors return); `nil` if
    /// it succeeded.
    public var error: (any Error)? {
        guard case .failure(let error) = outcome else { return nil }
        return error
    }
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

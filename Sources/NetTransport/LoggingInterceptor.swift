import NetCore

/// Writes each request as a redacted curl command and each result as a one-line summary to a
/// sink you supply (`print`, a `Logger`, a test's array).
///
/// Place it last among a ``NetworkClient``'s interceptors so it shows the request as sent,
/// signed and all; credentials are redacted by ``CurlOptions/default``. A `requestStream` call's
/// body gets a line of its own when it ends (in a ``NetworkClient``, which runs call
/// interceptors): how many bytes the caller read, or why it stopped.
public struct LoggingInterceptor: NetworkCallInterceptor {
    /// Receives each line.
    public let sink: @Sendable (String) -> Void
    /// How requests are rendered; redacting by default.
    public let curlOptions: CurlOptions

    /// Creates a logger writing to `sink`.
    public init(curlOptions: CurlOptions = .default, sink: @escaping @Sendable (String) -> Void) {
        self.curlOptions = curlOptions
        self.sink = sink
    }

    /// Logs the curl command for `request`.
    public func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
        sink("[Net] → \(request.curlCommand(curlOptions).shellCommand)")
        return request
    }

    /// Logs the status and size of a response, or the error.
    public func interceptResponse(
        _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult {
        let attempt = retryNumber > 0 ? " (retry \(retryNumber))" : ""
        switch result {
        case .success(.data(let response)) where response.bodyIsStreamed:
            sink("[Net] ← \(response.statusCode) \(request)\(attempt): body left for the caller's stream")
        case .success(.data(let response)):
            sink("[Net] ← \(response.statusCode) \(request)\(attempt): \(response.data.count) bytes")
        case .success(.upload(let response)):
            sink("[Net] ← \(response.statusCode) \(request)\(attempt): \(response.data.count) bytes")
        case .success(.download(let response)):
            sink("[Net] ← \(response.statusCode) \(request)\(attempt): body in \(response.url.path)")
        case .failure(let error):
            sink("[Net] ✗ \(request)\(attempt): \(error)")
        }
        return .nothing
    }

    /// Logs the end of a streamed body: its size, or why it stopped.
    public func interceptCall(
        _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
    ) async throws -> NetworkCallResult {
        let result = await proceed(request)
        guard result.streamsBody else { return result }
        let (sink, request) = (sink, request.withoutBody)  // the handler lives as long as the body
        return result.whenFinished { end in
            if end.bodyDropped {
                sink("[Net] ← body of \(request): dropped before its end")
            } else if let error = end.error {
                sink("[Net] ✗ body of \(request): \(error)")
            } else {
                sink("[Net] ← body of \(request): \(end.metrics.attempts.last?.responseBodyBytes ?? 0) bytes")
            }
        }
    }
}

/// Its `interceptRequest` returns at once: its attempts may run in the caller's task.
extension LoggingInterceptor: RequestInterceptionWithoutWaiting {}

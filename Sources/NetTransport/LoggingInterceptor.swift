import NetCore

/// Writes each request as a redacted curl command and each result as a one-line summary to a
/// sink you supply (`print`, a `Logger`, a test's array).
///
/// Place it last among a ``NetworkClient``'s interceptors so it shows the request as sent,
/// signed and all; credentials are redacted by ``CurlOptions/default``.
public struct LoggingInterceptor: NetworkInterceptor {
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
}

/// Its `interceptRequest` returns at once: its attempts may run in the caller's task.
extension LoggingInterceptor: RequestInterceptionWithoutWaiting {}

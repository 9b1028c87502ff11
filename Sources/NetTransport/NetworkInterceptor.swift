import NetCore

/// One reusable piece of session behaviour (retry, authentication, logging), composed by
/// ``NetworkClient``. Both methods have defaults, so an interceptor implements only what it needs.
public protocol NetworkInterceptor: Sendable {
    /// Adjusts a request before each attempt (for example, signs it). The default returns it unchanged.
    func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest

    /// Looks at what one attempt produced and decides whether to retry. `request` is the request
    /// as sent; `retryNumber` is 0 on the first attempt. The default returns `.nothing`.
    func interceptResponse(
        _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult
}

extension NetworkInterceptor {
    /// Returns the request unchanged.
    public func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest { request }

    /// Returns `.nothing`.
    public func interceptResponse(
        _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult { .nothing }
}

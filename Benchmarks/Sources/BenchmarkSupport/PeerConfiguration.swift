import AsyncHTTPClient

extension HTTPClient.Configuration {
    /// Raw AsyncHTTPClient set up as `AsyncHTTPClientTransport(configuration:)` sets up its own
    /// client with default settings, apart from the pool size: redirects not followed, the default
    /// `ResponseLimits` decompression ratio, no connection retries, a 10 s connect timeout, no
    /// tracer (tracing is the pipeline's, as in the transport). Every
    /// benchmark that compares Net with raw AsyncHTTPClient uses this, so the two differ only in
    /// Net.
    public static func likeNetsTransport(connectionsPerHost: Int) -> HTTPClient.Configuration {
        var settings = HTTPClient.Configuration()
        settings.redirectConfiguration = .disallow
        settings.decompression = .enabled(limit: .ratio(100))
        settings.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        settings.connectionPool.retryConnectionEstablishment = false
        settings.timeout = .init(connect: .seconds(10))
        settings.tracing.tracer = nil
        return settings
    }
}

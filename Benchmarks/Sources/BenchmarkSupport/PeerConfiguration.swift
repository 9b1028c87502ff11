import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPClient.Configuration {
    /// Raw AsyncHTTPClient set up as `AsyncHTTPClientTransport(configuration:)` sets up its own
    /// client with default settings, apart from the pool size: redirects not followed, the default
    /// `ResponseLimits` decompression ratio, no connection retries, a 10 s connect timeout, no
    /// tracer (tracing is the pipeline's, as in the transport). Every benchmark that compares Net
    /// with raw AsyncHTTPClient uses this, so the two differ only in Net.
    public static func likeNetsTransport(connectionsPerHost: Int) -> HTTPClient.Configuration {
        var settings = HTTPClient.Configuration()
        settings.redirectConfiguration = .disallow
        settings.httpVersion = .http1Only  // as the transport's default (`allowsHTTP2`)
        settings.decompression = .enabled(limit: .ratio(100))
        settings.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        settings.connectionPool.retryConnectionEstablishment = false
        settings.timeout = .init(connect: .seconds(10))
        settings.tracing.tracer = nil
        return settings
    }
}

extension URLSessionConfiguration {
    /// Raw URLSession set up as `URLSessionTransport(configuration:)` sets up its session: no
    /// cookies, no cache, the pool size given. With ``NoRedirects`` as its delegate, redirects are
    /// not followed either, as in the transport (whose pipeline follows them).
    public static func likeNetsTransport(connectionsPerHost: Int) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = connectionsPerHost
        return configuration
    }
}

/// Declines every redirect, as Net's transports do (the pipeline follows them).
public final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import NetCore
import NetTransport

extension AsyncHTTPClientTransport {
    /// How an ``AsyncHTTPClientTransport`` behaves.
    public struct Configuration: Sendable {
        /// Connections the pool keeps open to one host. Eight by default.
        public var maximumConnectionsPerHost: Int
        /// How long establishing a connection may take. Ten seconds by default.
        public var connectTimeout: Duration
        /// Whether AsyncHTTPClient keeps retrying a connection that cannot be established, with
        /// backoff, until ``connectTimeout``. Off by default: a refused connection fails at once as
        /// with `URLSessionTransport`, and `RetryPolicy` decides about retrying at the session layer.
        public var retriesConnectionEstablishment: Bool
        /// How large a response body may grow (decompression bombs, bodies held in memory).
        /// ``ResponseLimits/init(maximumInMemoryBodySize:decompression:)``'s defaults by default; the
        /// ratio is SwiftNIO's, counted against the compressed bytes received so far.
        public var responseLimits: ResponseLimits
        /// Trusted roots, client certificate, public-key pins and the lowest TLS version.
        /// ``TLSSettings/default`` (the system's roots, TLS 1.2 or later) by default.
        public var tls: TLSSettings
        /// The proxies requests go through. ``ProxyConfiguration/direct`` by default: the
        /// environment's `HTTPS_PROXY` and kin are read only when you pass
        /// ``ProxyConfiguration/environment(_:)``.
        ///
        /// An HTTP proxy carries `https://` *and* `http://` requests in a `CONNECT` tunnel
        /// (AsyncHTTPClient has no absolute-form requests), so the proxy must allow `CONNECT` to
        /// the origin's port. A SOCKS5 proxy gets the origin's host name (curl's `socks5h`), with
        /// the username/password method when it has credentials.
        public var proxy: ProxyConfiguration
        /// Whether an HTTPS connection may speak HTTP/2 when the server offers it. Off by default:
        /// connections speak HTTP/1.1.
        ///
        /// SwiftNIO's HTTP/2 codec under AsyncHTTPClient (swift-nio-http2 1.x) stops the process
        /// when a response's `:status` is a negative number (`HTTPResponseStatus(statusCode:)`
        /// converts it to `UInt`), so any HTTPS server a client calls could end it with one frame
        /// (seen with status `-1`; Docs/Transports.md). Net cannot check the frame before the
        /// codec does. Turn it on only for servers you trust.
        public var allowsHTTP2: Bool

        /// Creates a configuration; every parameter has the default described on its property.
        public init(maximumConnectionsPerHost: Int = 8, connectTimeout: Duration = .seconds(10),
                    retriesConnectionEstablishment: Bool = false, responseLimits: ResponseLimits = ResponseLimits(),
                    tls: TLSSettings = .default, proxy: ProxyConfiguration = .direct, allowsHTTP2: Bool = false) {
            self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
            self.connectTimeout = connectTimeout
            self.retriesConnectionEstablishment = retriesConnectionEstablishment
            self.responseLimits = responseLimits
            self.tls = tls
            self.proxy = proxy
            self.allowsHTTP2 = allowsHTTP2
        }
    }
}
#endif

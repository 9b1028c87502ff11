#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import NIOCore
import NetCore

/// The transport's `HTTPClient`s: one connecting directly and one per configured proxy, because
/// AsyncHTTPClient sets a proxy per client while `NO_PROXY` decides per request.
struct ProxyRoutedClients: Sendable {
    /// The event loops every client runs on (AsyncHTTPClient's `.singleton`): the transport's
    /// `LoopAffinity` takes its home loop from them, and AsyncHTTPClient traps on a loop of
    /// another group.
    static var loops: any EventLoopGroup { HTTPClient.defaultEventLoopGroup }

    private let direct: HTTPClient?
    private let proxied: [NetworkProxy: HTTPClient]
    /// Why no request can be sent with these settings, if they cannot be used.
    private let setupError: NetworkError?

    init(settings: HTTPClient.Configuration, tls: TLSSettings, proxies: ProxyConfiguration) {
        var settings = settings
        do throws(NetworkError) {
            if tls != .default { settings.tlsConfiguration = try tls.clientConfiguration() }
            var proxied: [NetworkProxy: HTTPClient] = [:]
            for proxy in Set([proxies.httpProxy, proxies.httpsProxy].compactMap { $0 }) {
                try Self.check(proxy)
                // A SOCKS5 proxy with credentials is reached by the transport's relay, not by AsyncHTTPClient.
                if OriginRelays.needsRelay(proxy) { continue }
                var proxySettings = settings
                proxySettings.proxy = try Self.proxy(proxy)
                proxied[proxy] = HTTPClient(eventLoopGroupProvider: .shared(Self.loops), configuration: proxySettings)
            }
            self.direct = HTTPClient(eventLoopGroupProvider: .shared(Self.loops), configuration: settings)
            self.proxied = proxied
            self.setupError = nil
        } catch {
            self.direct = nil
            self.proxied = [:]
            self.setupError = error
        }
    }

    /// The client for requests that go through `proxy` (`nil`: directly).
    func client(for proxy: NetworkProxy?) throws(NetworkError) -> HTTPClient {
        if let setupError { throw setupError }
        // Every configured proxy has a client, and `direct` exists unless `setupError` does: the
        // failures below cannot happen, and are typed errors rather than traps.
        if let proxy {
            guard let client = proxied[proxy] else { throw .transport(.unsupportedSetting("no client for the proxy \(proxy)")) }
            return client
        }
        guard let direct else { throw .transport(.unsupportedSetting("no direct client")) }
        return direct
    }

    func shutdown() {
        direct?.shutdown { _ in }
        for client in proxied.values { client.shutdown { _ in } }
    }

    private static func proxy(_ proxy: NetworkProxy) throws(NetworkError) -> HTTPClient.Configuration.Proxy {
        switch proxy.kind {
        case .http:
            return .server(host: proxy.host, port: proxy.port, authorization: proxy.credentials.map {
                .basic(username: $0.username, password: $0.password)
            })
        case .socks5:
            return .socksServer(host: proxy.host, port: proxy.port)
        }
    }

    /// SOCKS5 credentials fit its length bytes (RFC 1929): at most 255 bytes each.
    private static func check(_ proxy: NetworkProxy) throws(NetworkError) {
        guard proxy.kind == .socks5, let credentials = proxy.credentials else { return }
        guard (1...255).contains(credentials.username.utf8.count), credentials.password.utf8.count <= 255 else {
            throw .transport(.proxy(.invalidProxyURL("\(proxy)", reason: "SOCKS5 user names (1–255 bytes) and passwords (up to 255 bytes) must fit RFC 1929")))
        }
    }
}
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which proxy, if any, each request goes through: one for `http://` URLs, one for `https://`
/// URLs, and the hosts that bypass both.
///
/// ``direct`` (no proxy) is every transport's default. The environment's proxy is read only when
/// asked for, with ``environment(_:)``: a library that silently obeys `HTTPS_PROXY` can send a
/// service's traffic somewhere nobody configured.
public struct ProxyConfiguration: Sendable, Hashable {
    /// The proxy for `http://` URLs, or `nil` to connect directly.
    public var httpProxy: NetworkProxy?
    /// The proxy for `https://` URLs, or `nil` to connect directly.
    public var httpsProxy: NetworkProxy?
    /// The hosts that bypass both proxies.
    public var noProxy: NoProxyRules

    /// No proxy: every request connects directly.
    public static let direct = ProxyConfiguration()

    /// Creates a configuration with a proxy per URL scheme.
    public init(httpProxy: NetworkProxy? = nil, httpsProxy: NetworkProxy? = nil, noProxy: NoProxyRules = .none) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.noProxy = noProxy
    }

    /// Creates a configuration that sends every request through `proxy`, except to the hosts in
    /// `noProxy` (curl's `--proxy` with `--noproxy`).
    public init(proxy: NetworkProxy, noProxy: NoProxyRules = .none) {
        self.init(httpProxy: proxy, httpsProxy: proxy, noProxy: noProxy)
    }

    /// Whether no proxy is set: every request connects directly, without ``proxy(for:)`` asked.
    package var connectsDirectly: Bool { httpProxy == nil && httpsProxy == nil }

    /// The proxy a request to `url` goes through, or `nil` when it connects directly.
    public func proxy(for url: URL) -> NetworkProxy? {
        guard !connectsDirectly else { return nil }  // direct: every request asks, so no URL parsing
        let proxy = url.scheme?.lowercased() == "https" ? httpsProxy : httpProxy
        guard proxy != nil, !noProxy.bypassesProxy(for: url) else { return nil }
        return proxy
    }

    /// The proxies the conventional environment variables name, as curl reads them:
    /// - `http_proxy` for `http://` URLs, `https_proxy` for `https://` ones, and `all_proxy` for
    ///   either when its own is unset;
    /// - `no_proxy` for the hosts that bypass them (``NoProxyRules``);
    /// - each also in upper case, the lower-case form winning when both are set; an empty value is
    ///   unset.
    ///
    /// `HTTP_PROXY` in upper case is ignored when `REQUEST_METHOD` is set: in a CGI program the
    /// client controls it through a `Proxy:` request header ("httpoxy"), which is why curl never
    /// reads it and Go ignores it under CGI.
    ///
    /// - Parameter environment: the variables to read; the process's by default.
    /// - Throws: ``NetworkError/ProxyFailure/invalidProxyURL(_:reason:)`` naming a variable whose
    ///   value is not a proxy URL (never silently ignored, so a typo cannot mean "no proxy").
    public static func environment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(NetworkError) -> ProxyConfiguration {
        func value(_ name: String, upperCaseAllowed: Bool = true) -> (name: String, value: String)? {
            for key in upperCaseAllowed ? [name, name.uppercased()] : [name] {
                if let raw = environment[key], case let text = NetworkHeader.trimmingOptionalWhitespace(raw), !text.isEmpty { return (key, text) }
            }
            return nil
        }
        func proxy(_ name: String, upperCaseAllowed: Bool = true) throws(NetworkError) -> NetworkProxy? {
            guard let (key, text) = value(name, upperCaseAllowed: upperCaseAllowed) else { return nil }
            do {
                return try NetworkProxy(url: text)
            } catch {
                guard case .transport(.proxy(.invalidProxyURL(let url, let reason))) = error else { throw error }
                throw .transport(.proxy(.invalidProxyURL(url, reason: "\(key): \(reason)")))
            }
        }
        let underCGI = environment["REQUEST_METHOD"] != nil
        let all = try proxy("all_proxy")
        return ProxyConfiguration(
            httpProxy: try proxy("http_proxy", upperCaseAllowed: !underCGI) ?? all,
            httpsProxy: try proxy("https_proxy") ?? all,
            noProxy: NoProxyRules(value("no_proxy")?.value ?? ""))
    }
}

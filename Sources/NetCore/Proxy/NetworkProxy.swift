#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A proxy server that requests are sent through: an HTTP proxy (plain requests for `http://`
/// URLs, a `CONNECT` tunnel for `https://` ones) or a SOCKS5 proxy.
///
/// Its ``description`` never shows the password, so a proxy can be logged or put in an error.
public struct NetworkProxy: Sendable, Hashable, CustomStringConvertible {
    /// The proxy's protocol.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy (`http://`): absolute-form requests for `http://` URLs and a `CONNECT`
        /// tunnel for `https://` ones, so TLS stays end to end.
        case http
        /// A SOCKS5 proxy (`socks5://` or `socks5h://`). The host name is sent to the proxy, which
        /// resolves it (curl's `socks5h`), so no name leaks to the local resolver.
        case socks5
    }

    /// A user name and password for the proxy (HTTP `Proxy-Authorization: Basic`, or SOCKS5's
    /// username/password method). Never printed: its description is the user name alone.
    public struct Credentials: Sendable, Hashable, CustomStringConvertible {
        /// The user name.
        public var username: String
        /// The password.
        public var password: String

        /// Creates credentials.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }

        /// `username:REDACTED`.
        public var description: String { "\(username):\(NetworkRedaction.placeholder)" }
    }

    /// The proxy's protocol.
    public var kind: Kind
    /// The proxy's host name or IP address (an IPv6 address without brackets).
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The credentials sent to the proxy, if any.
    public var credentials: Credentials?

    /// The port a proxy URL without one gets: 1080, as curl assumes for every kind of proxy.
    public static let defaultPort = 1080

    /// Creates a proxy from its parts.
    public init(kind: Kind, host: String, port: Int = NetworkProxy.defaultPort, credentials: Credentials? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Parses a proxy URL as curl's `--proxy` does: `http://host:3128`, `socks5://user:pass@host`,
    /// `socks5h://host:1080`, or a bare `host:port` (an HTTP proxy). A missing port is
    /// ``defaultPort``; the user name and password are percent-decoded.
    ///
    /// - Throws: ``NetworkError/TransportFailure/proxy(_:)`` with
    ///   ``NetworkError/ProxyFailure/invalidProxyURL(_:reason:)`` for anything else (an `https://`
    ///   or `socks4://` proxy, a path, a bad port), the URL's password redacted.
    public init(url text: String) throws(NetworkError) {
        let trimmed = NetworkHeader.trimmingOptionalWhitespace(text)
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        func invalid(_ reason: String) -> NetworkError {
            .transport(.proxy(.invalidProxyURL(NetworkRedaction.redactedURL(withScheme), reason: reason)))
        }
        guard !trimmed.isEmpty else { throw invalid("the proxy URL is empty") }
        guard let components = URLComponents(string: withScheme), let scheme = components.scheme?.lowercased() else {
            throw invalid("it is not a URL")
        }
        let kind: Kind
        switch scheme {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        default: throw invalid("proxy scheme \(scheme) is not supported (use http, socks5 or socks5h)")
        }
        guard let host = components.host, !host.isEmpty else { throw invalid("it has no host") }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil else {
            throw invalid("a proxy URL has no path, query or fragment")
        }
        let port = components.port ?? Self.defaultPort
        guard (1...65535).contains(port) else { throw invalid("the port must be 1–65535") }
        // `user` and `password` are already percent-decoded.
        let credentials = components.user.map { Credentials(username: $0, password: components.password ?? "") }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.init(kind: kind, host: bare, port: port, credentials: credentials)
    }

    /// The proxy as a URL with its password redacted: `http://user:REDACTED@proxy:3128`.
    public var description: String {
        let scheme = kind == .http ? "http" : "socks5h"
        let userinfo = credentials.map { "\($0.description)@" } ?? ""
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(userinfo)\(hostText):\(port)"
    }
}

extension NetworkProxy.Credentials: CustomReflectable {
    /// Shows the user name and `REDACTED`, so `dump` of a proxy or a configuration cannot leak the
    /// password.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": NetworkRedaction.placeholder], displayStyle: .struct)
    }
}

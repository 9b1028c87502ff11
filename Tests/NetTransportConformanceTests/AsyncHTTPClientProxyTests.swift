#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// `AsyncHTTPClientTransport` through real proxies from Debian: tinyproxy (HTTP `CONNECT`, Basic
/// credentials) and Dante (SOCKS5). The proxies' own logs prove which requests went through them.
@Suite("AsyncHTTPClientTransport: proxies", .serialized)
struct AsyncHTTPClientProxyTests {
    static let username = "net-user"
    static let password = "pr0xy-s3cret"

    static func transport(_ proxy: ProxyConfiguration, tls: TLSSettings = .default) -> AsyncHTTPClientTransport {
        AsyncHTTPClientTransport(configuration: .init(tls: tls, proxy: proxy))
    }

    static func tinyproxy() async throws -> ProxyPeer {
        try await ProxyPeer(.tinyproxy(username: username, password: password))
    }

    static func httpProxy(_ peer: ProxyPeer, password: String = AsyncHTTPClientProxyTests.password) -> NetworkProxy {
        NetworkProxy(kind: .http, host: "127.0.0.1", port: peer.port, credentials: .init(username: username, password: password))
    }

    /// tinyproxy logs `CONNECT 127.0.0.1:PORT` for each tunnel asked for (refused ones too).
    static func tunnels(_ peer: ProxyPeer, to port: Int) -> Int {
        peer.log().components(separatedBy: "CONNECT 127.0.0.1:\(port) ").count - 1
    }

    /// tinyproxy logs `Established connection` for each connection it made to an origin.
    static func originConnections(_ peer: ProxyPeer) -> Int {
        peer.log().components(separatedBy: "Established connection to host").count - 1
    }

    @Test("an http:// request goes through an HTTP proxy with credentials (in a CONNECT tunnel)")
    func httpThroughProxy() async throws {
        let proxy = try await Self.tinyproxy()
        let origin = try await ConformanceServer.shared.baseURL()
        let transport = Self.transport(ProxyConfiguration(proxy: Self.httpProxy(proxy)))
        #expect(await TransportOutcome.of(transport, origin.absoluteString + "/bytes/5") == .body(String(decoding: ConformanceServer.pattern(count: 5), as: UTF8.self)))
        #expect(Self.tunnels(proxy, to: origin.port ?? 0) == 1, "\(proxy.log())")
    }

    @Test("an https:// request is tunnelled through the HTTP proxy, TLS end to end with the origin")
    func httpsThroughProxy() async throws {
        let proxy = try await Self.tinyproxy()
        let server = try await TLSPeers.Server()
        let transport = Self.transport(ProxyConfiguration(proxy: Self.httpProxy(proxy)),
                                       tls: TLSSettings(trustedRoots: .only(try await TLSPeers.pem("ca.pem"))))
        #expect(await TransportOutcome.of(transport, server.url) == .body("tls ok"))
        #expect(Self.tunnels(proxy, to: server.port) == 1, "\(proxy.log())")
    }

    @Test("a pinned host reached through an HTTP proxy is refused with unsupportedSetting, before any tunnel is asked for")
    func pinnedThroughHTTPProxy() async throws {
        let proxy = try await Self.tinyproxy()
        let server = try await TLSPeers.Server()
        let pins = try PublicKeyPins().pinning(host: "127.0.0.1", "sha256//" + (try await TLSPeers.pem("server.pin")))
        let transport = Self.transport(ProxyConfiguration(proxy: Self.httpProxy(proxy)),
                                       tls: TLSSettings(trustedRoots: .only(try await TLSPeers.pem("ca.pem")), pinnedPublicKeys: pins))
        guard case .failed(.unsupportedSetting(let reason)) = await TransportOutcome.of(transport, server.url) else {
            Issue.record("a pinned host through an HTTP proxy was not refused as an unsupported setting")
            return
        }
        #expect(reason.contains("127.0.0.1") && reason.contains("pinned"), "\(reason)")
        #expect(Self.tunnels(proxy, to: server.port) == 0, "\(proxy.log())")
    }

    @Test("a proxy that asks for credentials (407) is a typed authentication failure naming it")
    func missingCredentials() async throws {
        let proxy = try await Self.tinyproxy()
        let origin = try await ConformanceServer.shared.baseURL()
        let outcome = await TransportOutcome.of(Self.transport(ProxyConfiguration(proxy: NetworkProxy(kind: .http, host: "127.0.0.1", port: proxy.port))),
                                                origin.absoluteString + "/bytes/5")
        #expect(outcome == .failed(.proxy(.authenticationFailed(proxy: "http://127.0.0.1:\(proxy.port)"))))
        #expect(Self.tunnels(proxy, to: origin.port ?? 0) == 1 && Self.originConnections(proxy) == 0, "\(proxy.log())")
    }

    @Test("wrong proxy credentials are a typed proxy error that never shows the password")
    func wrongCredentials() async throws {
        let proxy = try await Self.tinyproxy()
        let origin = try await ConformanceServer.shared.baseURL()
        let wrong = "wr0ng-s3cret"
        let outcome = await TransportOutcome.of(Self.transport(ProxyConfiguration(proxy: Self.httpProxy(proxy, password: wrong))),
                                                origin.absoluteString + "/bytes/5")
        // tinyproxy 1.11 answers wrong credentials on a CONNECT with 401, not 407, which
        // AsyncHTTPClient reports like any other refusal of the tunnel.
        guard case .failed(.proxy(.cannotConnect(let name, let reason))) = outcome else {
            Issue.record("expected the proxy's refusal, got \(outcome)")
            return
        }
        #expect(name == "http://\(Self.username):REDACTED@127.0.0.1:\(proxy.port)")
        #expect(reason.contains("refused"))
        #expect(!"\(outcome)".contains(wrong) && !"\(NetworkError.transport(.proxy(.cannotConnect(proxy: name, reason: reason))))".contains(wrong))
        #expect(Self.tunnels(proxy, to: origin.port ?? 0) == 1 && Self.originConnections(proxy) == 0, "\(proxy.log())")
    }

    @Test("NO_PROXY hosts bypass the proxy; other requests still use it")
    func noProxyBypasses() async throws {
        let proxy = try await Self.tinyproxy()
        let origin = try await ConformanceServer.shared.baseURL()
        let port = origin.port ?? 0
        let bypassing = Self.transport(ProxyConfiguration(proxy: Self.httpProxy(proxy), noProxy: NoProxyRules("example.com, 127.0.0.1:\(port)")))
        #expect(await TransportOutcome.of(bypassing, origin.absoluteString + "/bytes/3") == .body(String(decoding: ConformanceServer.pattern(count: 3), as: UTF8.self)))
        #expect(Self.tunnels(proxy, to: port) == 0, "a NO_PROXY host went through the proxy: \(proxy.log())")
        let otherPort = Self.transport(ProxyConfiguration(proxy: Self.httpProxy(proxy), noProxy: NoProxyRules("127.0.0.1:\(port == 1 ? 2 : 1)")))
        _ = await TransportOutcome.of(otherPort, origin.absoluteString + "/bytes/3")
        #expect(Self.tunnels(proxy, to: port) == 1, "\(proxy.log())")
    }

    @Test("the environment's proxy is used only when asked for, with its NO_PROXY")
    func environmentProxy() async throws {
        let proxy = try await Self.tinyproxy()
        let origin = try await ConformanceServer.shared.baseURL()
        let port = origin.port ?? 0
        let environment = ["HTTP_PROXY": "http://\(Self.username):\(Self.password)@127.0.0.1:\(proxy.port)", "no_proxy": "localhost"]
        let fromEnvironment = Self.transport(try ProxyConfiguration.environment(environment))
        _ = await TransportOutcome.of(fromEnvironment, origin.absoluteString + "/bytes/1")
        #expect(Self.tunnels(proxy, to: port) == 1, "\(proxy.log())")
        _ = await TransportOutcome.of(AsyncHTTPClientTransport(), origin.absoluteString + "/bytes/1")
        #expect(Self.tunnels(proxy, to: port) == 1, "the default configuration used a proxy")
    }

    @Test("a request goes through a SOCKS5 proxy (Dante), which names the origin it connected to")
    func socks5() async throws {
        let dante = try await ProxyPeer(.dante)
        let origin = try await ConformanceServer.shared.baseURL()
        let transport = Self.transport(ProxyConfiguration(proxy: NetworkProxy(kind: .socks5, host: "127.0.0.1", port: dante.port)))
        #expect(await TransportOutcome.of(transport, origin.absoluteString + "/bytes/4") == .body(String(decoding: ConformanceServer.pattern(count: 4), as: UTF8.self)))
        #expect(dante.log().contains("127.0.0.1.\(origin.port ?? 0)"), "\(dante.log())")
    }

    static func socksProxy(_ peer: ProxyPeer, password: String? = ProxyPeer.socksPassword) -> NetworkProxy {
        NetworkProxy(kind: .socks5, host: "127.0.0.1", port: peer.port,
                     credentials: password.map { .init(username: ProxyPeer.socksUsername, password: $0) })
    }

    @Test("SOCKS5 with a username and password (Dante): http:// requests, several at once, arrive through it")
    func socks5Credentials() async throws {
        let dante = try await ProxyPeer(.danteWithCredentials)
        let origin = try await ConformanceServer.shared.baseURL()
        let transport = Self.transport(ProxyConfiguration(proxy: Self.socksProxy(dante)))
        let url = origin.absoluteString + "/bytes/6"
        let outcomes = await withTaskGroup(of: TransportOutcome.self) { group in
            for _ in 0..<8 { group.addTask { await TransportOutcome.of(transport, url) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: .body(String(decoding: ConformanceServer.pattern(count: 6), as: UTF8.self)), count: 8))
        #expect(dante.log().contains("username%\(ProxyPeer.socksUsername)@"), "\(dante.log())")
        #expect(dante.log().contains("127.0.0.1.\(origin.port ?? 0)"), "\(dante.log())")
    }

    @Test("SOCKS5 with credentials to an https:// origin: TLS end to end, pins checked through the tunnel")
    func socks5CredentialsTLS() async throws {
        let dante = try await ProxyPeer(.danteWithCredentials)
        let server = try await TLSPeers.Server()
        let ca = try await TLSPeers.pem("ca.pem")
        let matching = TLSSettings(trustedRoots: .only(ca),
                                   pinnedPublicKeys: try PublicKeyPins().pinning(host: "127.0.0.1", "sha256//" + (try await TLSPeers.pem("server.pin"))))
        #expect(await TransportOutcome.of(Self.transport(ProxyConfiguration(proxy: Self.socksProxy(dante)), tls: matching), server.url) == .body("tls ok"))
        #expect(dante.log().contains("127.0.0.1.\(server.port)"), "\(dante.log())")
        let other = TLSSettings(trustedRoots: .only(ca),
                                pinnedPublicKeys: try PublicKeyPins().pinning(host: "127.0.0.1", "sha256//" + (try await TLSPeers.pem("other.pin"))))
        #expect(await TransportOutcome.of(Self.transport(ProxyConfiguration(proxy: Self.socksProxy(dante)), tls: other), server.url)
            == .failed(.publicKeyPinMismatch(host: "127.0.0.1")))
        let untrusted = await TransportOutcome.of(Self.transport(ProxyConfiguration(proxy: Self.socksProxy(dante))), server.url)
        guard case .failed(.tls) = untrusted else {
            Issue.record("a private CA's certificate through the tunnel: expected a TLS failure, got \(untrusted)")
            return
        }
    }

    @Test("SOCKS5 with credentials: a proxy that accepts the connection and never answers; a call given up closes the relay's connection to it",
          .timeLimit(.minutes(5)))
    func socks5Stalled() async throws {
        let silent = SilentTCPServer()
        let proxy = NetworkProxy(kind: .socks5, host: "127.0.0.1", port: Int(silent.port),
                                 credentials: .init(username: ProxyPeer.socksUsername, password: ProxyPeer.socksPassword))
        let transport = Self.transport(ProxyConfiguration(proxy: proxy))
        try await silent.expectGivenUpCallClosesItsConnection(
            try NetworkRequest(url: "http://127.0.0.1:1/", timeout: .seconds(3600)), through: transport, peer: "proxy")
    }

    @Test("SOCKS5: a wrong password, or none where one is required, is a typed authentication failure that never shows it")
    func socks5WrongCredentials() async throws {
        let dante = try await ProxyPeer(.danteWithCredentials)
        let origin = try await ConformanceServer.shared.baseURL()
        let wrong = "wr0ng-s0cks"
        let outcome = await TransportOutcome.of(Self.transport(ProxyConfiguration(proxy: Self.socksProxy(dante, password: wrong))),
                                                origin.absoluteString + "/bytes/1")
        let name = "socks5h://\(ProxyPeer.socksUsername):REDACTED@127.0.0.1:\(dante.port)"
        #expect(outcome == .failed(.proxy(.authenticationFailed(proxy: name))))
        #expect(!"\(outcome)".contains(wrong) && !"\(outcome)".contains(ProxyPeer.socksPassword))
        let anonymous = await TransportOutcome.of(Self.transport(ProxyConfiguration(proxy: Self.socksProxy(dante, password: nil))),
                                                  origin.absoluteString + "/bytes/1")
        #expect(anonymous == .failed(.proxy(.authenticationFailed(proxy: "socks5h://127.0.0.1:\(dante.port)"))))
        #expect(!dante.log().contains("-> 127.0.0.1.\(origin.port ?? 0)"), "the proxy connected to the origin: \(dante.log())")
    }

    @Test("SOCKS5 credentials longer than RFC 1929 allows are a typed settings error")
    func socks5CredentialsTooLong() async {
        let proxy = NetworkProxy(kind: .socks5, host: "127.0.0.1", port: 1080, credentials: .init(username: "u", password: String(repeating: "p", count: 256)))
        let outcome = await TransportOutcome.of(Self.transport(ProxyConfiguration(proxy: proxy)), "http://127.0.0.1:1/")
        guard case .failed(.proxy(.invalidProxyURL(let url, _))) = outcome else {
            Issue.record("expected invalidProxyURL, got \(outcome)")
            return
        }
        #expect(!url.contains("ppp"))
    }

    @Test("a proxy that is not listening is a typed proxy error naming it")
    func proxyDown() async throws {
        let port = try LocalPorts.closed()
        let origin = try await ConformanceServer.shared.baseURL()
        let outcome = await TransportOutcome.of(Self.transport(ProxyConfiguration(proxy: NetworkProxy(kind: .http, host: "127.0.0.1", port: port))),
                                                origin.absoluteString + "/bytes/1")
        guard case .failed(.proxy(.cannotConnect(let name, _))) = outcome else {
            Issue.record("expected cannotConnect through the proxy, got \(outcome)")
            return
        }
        #expect(name == "http://127.0.0.1:\(port)")
    }
}
#endif

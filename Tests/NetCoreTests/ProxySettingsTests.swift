import Foundation
@testable import NetCore
import Testing

/// Proxy URLs, `NO_PROXY` lists (curl's rules, plus ports) and the environment's proxy variables.
@Suite("Proxy settings: URLs, NO_PROXY and the environment")
struct ProxySettingsTests {
    @Test("proxy URLs parse as curl's --proxy does", arguments: [
        ("http://proxy.example:3128", NetworkProxy(kind: .http, host: "proxy.example", port: 3128)),
        ("proxy.example:8080", NetworkProxy(kind: .http, host: "proxy.example", port: 8080)),
        ("proxy.example", NetworkProxy(kind: .http, host: "proxy.example", port: 1080)),
        ("socks5://10.0.0.1", NetworkProxy(kind: .socks5, host: "10.0.0.1", port: 1080)),
        ("socks5h://[::1]:9050", NetworkProxy(kind: .socks5, host: "::1", port: 9050)),
        ("http://us%40er:p%3Ass@proxy:3128", NetworkProxy(kind: .http, host: "proxy", port: 3128, credentials: .init(username: "us@er", password: "p:ss"))),
        ("  HTTP://proxy:1  ", NetworkProxy(kind: .http, host: "proxy", port: 1)),
    ])
    func parses(_ text: String, _ expected: NetworkProxy) throws {
        #expect(try NetworkProxy(url: text) == expected)
    }

    @Test("proxy URLs Net cannot use are typed errors that never show the password", arguments: [
        ("https://proxy:443", "scheme https"),
        ("socks4://proxy:1080", "scheme socks4"),
        ("http://proxy:3128/path", "no path"),
        ("http://:3128", "no host"),
        ("http://proxy:0", "1–65535"),
        ("", "empty"),
    ])
    func rejects(_ text: String, _ reason: String) {
        #expect {
            try NetworkProxy(url: text.isEmpty ? text : text.replacingOccurrences(of: "://", with: "://user:s3cret@"))
        } throws: { error in
            guard case NetworkError.transport(.proxy(.invalidProxyURL(let url, let why))) = error else { return false }
            return why.contains(reason) && !url.contains("s3cret") && !"\(error)".contains("s3cret")
        }
    }

    @Test("a proxy's description redacts its password")
    func description() throws {
        let proxy = try NetworkProxy(url: "http://alice:s3cret@proxy:3128")
        #expect("\(proxy)" == "http://alice:REDACTED@proxy:3128")
        #expect("\(NetworkProxy(kind: .socks5, host: "::1", port: 1))" == "socks5h://[::1]:1")
    }

    @Test("NO_PROXY entries match as curl's do (names by suffix, addresses and ranges literally), ports restrict", arguments: [
        ("example.com", "example.com", 443, true),
        ("example.com", "api.example.com", 443, true),
        ("example.com", "notexample.com", 443, false),
        (".example.com", "example.com", 80, true),
        ("*.example.com", "a.b.example.com", 80, true),
        ("EXAMPLE.com", "Api.Example.COM.", 80, true),
        ("*", "anything.at.all", 80, true),
        ("localhost,127.0.0.1", "127.0.0.1", 8080, true),
        ("127.0.0.1", "127.0.0.2", 80, false),
        ("10.0.0.0/8", "10.200.3.4", 80, true),
        ("10.0.0.0/8", "11.0.0.1", 80, false),
        ("192.168.1.0/25", "192.168.1.127", 80, true),
        ("192.168.1.0/25", "192.168.1.128", 80, false),
        ("fd00::/8", "[fd12::1]", 443, true),
        ("::1", "[::1]", 443, true),
        ("[::1]:8443", "::1", 443, false),
        ("[::1]:8443", "::1", 8443, true),
        ("example.com:8080", "example.com", 8080, true),
        ("example.com:8080", "example.com", 80, false),
        ("10.0.0.0/8", "ten.example", 80, false),
        ("example.com other.org", "x.other.org", 80, true),
        ("", "example.com", 80, false),
        ("bad:port:entry, example.com:notaport", "example.com", 80, false),
    ])
    func noProxy(_ list: String, _ host: String, _ port: Int, _ bypasses: Bool) {
        #expect(NoProxyRules(list).bypassesProxy(host: host, port: port) == bypasses)
    }

    @Test("a URL's default port counts for NO_PROXY ports")
    func defaultPorts() throws {
        let rules = NoProxyRules("example.com:443")
        #expect(rules.bypassesProxy(for: try #require(URL(string: "https://example.com/x"))))
        #expect(!rules.bypassesProxy(for: try #require(URL(string: "http://example.com/x"))))
    }

    @Test("the environment: lower case wins, all_proxy fills in, no_proxy applies, empty is unset")
    func environment() throws {
        let configuration = try ProxyConfiguration.environment([
            "http_proxy": "http://lower:1", "HTTP_PROXY": "http://upper:2",
            "ALL_PROXY": "socks5h://all:3", "NO_PROXY": "internal.example", "https_proxy": "",
        ])
        #expect(configuration.httpProxy?.host == "lower")
        #expect(configuration.httpsProxy?.host == "all")
        #expect(configuration.proxy(for: try #require(URL(string: "https://api.internal.example"))) == nil)
        #expect(configuration.proxy(for: try #require(URL(string: "https://api.example"))) == NetworkProxy(kind: .socks5, host: "all", port: 3))
        #expect(try ProxyConfiguration.environment([:]) == .direct)
    }

    @Test("HTTP_PROXY in upper case is ignored in a CGI program (httpoxy); the lower-case form still counts")
    func httpoxy() throws {
        let cgi = try ProxyConfiguration.environment(["REQUEST_METHOD": "GET", "HTTP_PROXY": "http://attacker:1"])
        #expect(cgi.httpProxy == nil)
        let lower = try ProxyConfiguration.environment(["REQUEST_METHOD": "GET", "http_proxy": "http://ops:1"])
        #expect(lower.httpProxy?.host == "ops")
    }

    @Test("a malformed proxy variable is a typed error naming the variable, never a silent direct connection")
    func malformedVariable() {
        #expect {
            try ProxyConfiguration.environment(["HTTPS_PROXY": "ftp://user:s3cret@proxy"])
        } throws: { error in
            guard case NetworkError.transport(.proxy(.invalidProxyURL(_, let reason))) = error else { return false }
            return reason.hasPrefix("HTTPS_PROXY:") && !"\(error)".contains("s3cret")
        }
    }

    @Test("direct sends nothing through a proxy; one proxy for all URLs honours NO_PROXY")
    func selection() throws {
        let proxy = NetworkProxy(kind: .http, host: "proxy", port: 3128)
        let url = try #require(URL(string: "http://service.local/x"))
        #expect(ProxyConfiguration.direct.proxy(for: url) == nil)
        #expect(ProxyConfiguration(proxy: proxy).proxy(for: url) == proxy)
        #expect(ProxyConfiguration(proxy: proxy, noProxy: ".local").proxy(for: url) == nil)
        #expect(ProxyConfiguration(httpsProxy: proxy).proxy(for: url) == nil)
    }
}

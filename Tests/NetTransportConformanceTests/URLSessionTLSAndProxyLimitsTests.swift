import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// What URLSessionTransport on Linux does with TLS and proxies, measured so the declared
/// limitations in Docs/TLS-and-proxies.md stay true: FoundationNetworking passes libcurl no TLS
/// or proxy option (no extra roots, no client certificate, no pinning, no proxy setting), while
/// libcurl itself obeys the process's `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy`.
/// When a toolchain changes either, these tests fail and the documentation must change with them.
@Suite("URLSessionTransport: TLS and proxy limits on Linux", .serialized)
struct URLSessionTLSAndProxyLimitsTests {
    static let probe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("URLSessionFaultProbe").path

    @Test("a private CA's certificate is refused as a typed TLS failure: only the system's roots are trusted")
    func privateCARefused() async throws {
        let server = try await TLSPeers.Server()
        let outcome = await TransportOutcome.of(URLSessionTransport(), server.url)
        guard case .failed(.tls) = outcome else {
            Issue.record("URLSessionTransport accepted or misreported a private CA's certificate: \(outcome)")
            return
        }
    }

    @Test("libcurl under URLSession follows the process's http_proxy, whatever Net is told, and no_proxy")
    func environmentProxyFollowed() async throws {
        let proxy = try await ProxyPeer(.tinyproxy(username: "u", password: "p"))
        let origin = try await ConformanceServer.shared.baseURL()
        var environment = ProcessInfo.processInfo.environment
        environment["http_proxy"] = "http://u:p@127.0.0.1:\(proxy.port)"
        let output = try await runProcessOffPool(Self.probe, [origin.absoluteString + "/bytes/7"], environment: environment)
        #expect(String(decoding: output, as: UTF8.self).hasPrefix("response 200 OK 7 bytes"))
        // Absolute-form, as an HTTP proxy is meant to get plain http:// requests.
        #expect(proxy.log().contains("GET \(origin.absoluteString)/bytes/7 "), "\(proxy.log())")

        environment["no_proxy"] = "127.0.0.1"
        // The call must have been made (straight to the origin) for the proxy's silence to mean anything.
        let direct = try await runProcessOffPool(Self.probe, [origin.absoluteString + "/bytes/8"], environment: environment)
        #expect(String(decoding: direct, as: UTF8.self).hasPrefix("response 200 OK 8 bytes"), "\(String(decoding: direct, as: UTF8.self))")
        #expect(!proxy.log().contains("/bytes/8"), "no_proxy was not honoured: \(proxy.log())")
    }
}

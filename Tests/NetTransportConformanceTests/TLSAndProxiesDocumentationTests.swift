#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import Net
import NetAsyncHTTPClient
import NetTestSupport
import Testing

/// Docs/TLS-and-proxies.md's samples, verbatim (the root package's DocumentationCoverageTests
/// checks this file too), run with the test certificates and a real tinyproxy.
@Suite("Docs/TLS-and-proxies.md")
struct TLSAndProxiesDocumentationTests {
    @Test("The TLS sample reaches a server that wants a client certificate, pinned")
    func tlsSample() async throws {
        let directory = try await TLSPeers.certificates()
        let caFile = directory.appendingPathComponent("ca.pem").path
        let certificateFile = directory.appendingPathComponent("client.pem").path
        let keyFile = directory.appendingPathComponent("client-encrypted.key").path
        let passphrase = "s3cret"
        let currentPin = try await TLSPeers.pem("server.pin")
        let nextPin = try await TLSPeers.pem("other.pin")
        let server = try await TLSPeers.Server(requiresClientCertificate: true)

        let tls = TLSSettings(
            trustedRoots: .systemAnd(try String(contentsOfFile: caFile, encoding: .utf8)),
            clientIdentity: .init(
                certificateChainPEM: try String(contentsOfFile: certificateFile, encoding: .utf8),
                privateKeyPEM: try String(contentsOfFile: keyFile, encoding: .utf8),
                passphrase: passphrase),
            pinnedPublicKeys: try PublicKeyPins().pinning(host: "api.example.com", "sha256//\(currentPin);sha256//\(nextPin)"),
            minimumVersion: .tls13)
        let transport = AsyncHTTPClientTransport(configuration: .init(tls: tls))

        #expect(await TransportOutcome.of(transport, server.url, header: "X-Client-Subject") == .body("tls ok net-test-client"))
    }

    @Test("The proxy sample picks the proxy per URL, honours NO_PROXY and redacts the password")
    func proxySample() async throws {
        let proxies = ProxyConfiguration(
            proxy: try NetworkProxy(url: "http://user:password@proxy.internal:3128"),
            noProxy: "localhost, .internal.example, 10.0.0.0/8")
        let fromEnvironment = try ProxyConfiguration.environment()
        let transport = AsyncHTTPClientTransport(configuration: .init(proxy: proxies))

        #expect(proxies.proxy(for: try #require(URL(string: "https://api.example.com"))) == proxies.httpsProxy)
        #expect(proxies.proxy(for: try #require(URL(string: "https://db.internal.example"))) == nil)
        #expect(fromEnvironment == (try ProxyConfiguration.environment(ProcessInfo.processInfo.environment)))
        #expect(transport.configuration.proxy == proxies)
        #expect("\(proxies.httpProxy.map { "\($0)" } ?? "")" == "http://user:REDACTED@proxy.internal:3128")
    }
}
#endif

#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// `AsyncHTTPClientTransport`'s TLS settings against HTTPS servers on Python's `ssl` (OpenSSL),
/// with certificates openssl made for this test run: a private CA, an expired certificate, one
/// for another host, a server that requires a client certificate, one that stops at TLS 1.2.
@Suite("AsyncHTTPClientTransport: TLS settings")
struct AsyncHTTPClientTLSTests {
    static func transport(_ tls: TLSSettings) -> AsyncHTTPClientTransport {
        AsyncHTTPClientTransport(configuration: .init(tls: tls))
    }

    static func trustingCA(_ change: (inout TLSSettings) async throws -> Void = { _ in }) async throws -> TLSSettings {
        var settings = TLSSettings(trustedRoots: .systemAnd(try await TLSPeers.pem("ca.pem")))
        try await change(&settings)
        return settings
    }

    static func outcome(_ transport: AsyncHTTPClientTransport, _ url: String) async -> TransportOutcome {
        await TransportOutcome.of(transport, url, header: "X-Client-Subject")
    }

    static func isTLSFailure(_ outcome: TransportOutcome) -> Bool {
        if case .failed(.tls) = outcome { return true }
        return false
    }

    @Test("connections speak HTTP/1.1 unless HTTP/2 is allowed: a server whose HTTP/2 answer would stop the process is met over HTTP/1.1")
    func http1ByDefault() async throws {
        // `:status: -1` over HTTP/2 traps in SwiftNIO's codec (UInt(-1)); the peer answers
        // HTTP/1.1 with `h1 ok`. A regression ends this test process, as it would a user's.
        let server = try await TLSPeers.Server(http2Status: "-1")
        let transport = Self.transport(try await Self.trustingCA())
        #expect(!transport.configuration.allowsHTTP2)
        #expect(await Self.outcome(transport, server.url) == .body("h1 ok"))
    }

    @Test("a private CA's certificate is refused with the system's roots, and accepted once the CA is added")
    func privateCA() async throws {
        let server = try await TLSPeers.Server()
        let refused = await Self.outcome(Self.transport(.default), server.url)
        #expect(Self.isTLSFailure(refused), "\(refused)")
        #expect(try await Self.outcome(Self.transport(Self.trustingCA()), server.url) == .body("tls ok"))
    }

    @Test("`only` trusts the given roots alone: the right CA passes, another CA's roots refuse the server")
    func onlyTheGivenRoots() async throws {
        let server = try await TLSPeers.Server()
        let own = Self.transport(TLSSettings(trustedRoots: .only(try await TLSPeers.pem("ca.pem"))))
        #expect(await Self.outcome(own, server.url) == .body("tls ok"))
        let other = Self.transport(TLSSettings(trustedRoots: .only(try await TLSPeers.pem("client-ca.pem"))))
        let refused = await Self.outcome(other, server.url)
        #expect(Self.isTLSFailure(refused), "\(refused)")
    }

    @Test("an expired certificate and one for another host are refused even from a trusted CA",
          arguments: ["expired", "wronghost"])
    func badCertificates(_ certificate: String) async throws {
        let server = try await TLSPeers.Server(certificate: certificate)
        let result = await Self.outcome(Self.transport(try await Self.trustingCA()), server.url)
        #expect(Self.isTLSFailure(result), "\(result)")
    }

    @Test("a server that requires a client certificate refuses the client without one and sees the one given, its key plain or encrypted",
          arguments: [("client.key", nil), ("client-encrypted.key", "s3cret")] as [(String, String?)])
    func clientCertificate(_ key: String, _ passphrase: String?) async throws {
        let server = try await TLSPeers.Server(requiresClientCertificate: true)
        let without = await Self.outcome(Self.transport(try await Self.trustingCA()), server.url)
        guard case .failed(let failure) = without else {
            Issue.record("a server requiring a client certificate answered a client without one: \(without)")
            return
        }
        // TLS 1.3 sends the server's refusal after the client's handshake is done: it arrives as
        // an alert (tls) or, when the server closes first, as a closed connection.
        switch failure {
        case .tls, .connectionLost: break
        default: Issue.record("unexpected failure without a client certificate: \(failure)")
        }
        let settings = try await Self.trustingCA {
            $0.clientIdentity = .init(certificateChainPEM: try await TLSPeers.pem("client.pem"), privateKeyPEM: try await TLSPeers.pem(key), passphrase: passphrase)
        }
        #expect(await Self.outcome(Self.transport(settings), server.url) == .body("tls ok net-test-client"))
    }

    @Test("an encrypted key with a wrong or no passphrase is a typed settings error, and nothing is sent",
          arguments: ["wrong-PASS-7", nil] as [String?])
    func wrongPassphrase(_ passphrase: String?) async throws {
        // A server that only counts connections: the settings must fail before one is opened.
        let silent = SilentTCPServer()
        let settings = try await Self.trustingCA {
            $0.clientIdentity = .init(certificateChainPEM: try await TLSPeers.pem("client.pem"),
                                      privateKeyPEM: try await TLSPeers.pem("client-encrypted.key"), passphrase: passphrase)
        }
        try await silent.expectNoConnection {
            let result = await Self.outcome(Self.transport(settings), "https://127.0.0.1:\(silent.port)/")
            guard case .failed(.invalidTLSSettings(let message)) = result else {
                Issue.record("expected invalidTLSSettings, got \(result)")
                return
            }
            #expect(message.contains("passphrase"))
            // Neither the passphrase given nor the key is repeated in the error or the settings.
            #expect(!message.contains("wrong-PASS-7") && !"\(settings)".contains("wrong-PASS-7") && !"\(settings)".contains("BEGIN"))
        }
    }

    @Test("a passphrase of characters other than ASCII is a typed settings error, not SwiftNIO's trap")
    func nonASCIIPassphrase() async throws {
        let settings = try await Self.trustingCA {
            $0.clientIdentity = .init(certificateChainPEM: try await TLSPeers.pem("client.pem"),
                                      privateKeyPEM: try await TLSPeers.pem("client-encrypted.key"), passphrase: "pässwort")
        }
        let result = await Self.outcome(Self.transport(settings), "https://127.0.0.1:1/")
        guard case .failed(.invalidTLSSettings(let message)) = result else {
            Issue.record("expected invalidTLSSettings, got \(result)")
            return
        }
        #expect(message.contains("ASCII") && !message.contains("pässwort"))
    }

    @Test("certificates that are not PEM are a typed settings error")
    func notPEM() async throws {
        let result = await Self.outcome(Self.transport(TLSSettings(trustedRoots: .only("not a certificate"))), "https://127.0.0.1:1/")
        guard case .failed(.invalidTLSSettings) = result else {
            Issue.record("expected invalidTLSSettings, got \(result)")
            return
        }
    }

    @Test("a TLS 1.3 minimum refuses a server that stops at TLS 1.2, which the default accepts")
    func minimumVersion() async throws {
        let server = try await TLSPeers.Server(maximumTLS12: true)
        #expect(await Self.outcome(Self.transport(try await Self.trustingCA()), server.url) == .body("tls ok"))
        let strict = await Self.outcome(Self.transport(try await Self.trustingCA { $0.minimumVersion = .tls13 }), server.url)
        #expect(Self.isTLSFailure(strict), "\(strict)")
    }
}
#endif

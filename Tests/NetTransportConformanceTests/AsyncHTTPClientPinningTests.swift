#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// Public-key pinning on `AsyncHTTPClientTransport` (through its pinning relay) against HTTPS
/// servers on Python's `ssl`: `server` and `other` have certificates from the same trusted CA for
/// the same address, with different keys, so only the pin tells them apart.
@Suite("AsyncHTTPClientTransport: public-key pinning")
struct AsyncHTTPClientPinningTests {
    static func transport(pinning pins: String, host: String = "127.0.0.1", roots: TLSSettings.TrustedRoots? = nil) async throws -> AsyncHTTPClientTransport {
        let trusted: TLSSettings.TrustedRoots = if let roots { roots } else { .only(try await TLSPeers.pem("ca.pem")) }
        let settings = TLSSettings(trustedRoots: trusted,
                                   pinnedPublicKeys: try PublicKeyPins().pinning(host: host, pins))
        return AsyncHTTPClientTransport(configuration: .init(tls: settings))
    }

    static func pin(_ name: String) async throws -> String { "sha256//" + (try await TLSPeers.pem("\(name).pin")) }

    /// How many requests the server answered, asked over an unpinned connection.
    static func requestsServed(by server: TLSPeers.Server) async throws -> String {
        let plain = AsyncHTTPClientTransport(configuration: .init(tls: TLSSettings(trustedRoots: .only(try await TLSPeers.pem("ca.pem")))))
        return String(decoding: try await plain.send(try NetworkRequest(url: server.url + "/requests")).body, as: UTF8.self)
    }

    @Test("a server whose key is pinned is reached; bodies and concurrent requests pass through the relay intact")
    func matchingPin() async throws {
        let server = try await TLSPeers.Server()
        let transport = try await Self.transport(pinning: await Self.pin("server"))
        #expect(await TransportOutcome.of(transport, server.url) == .body("tls ok"))
        let size = 3 << 20
        let body = try await transport.send(try NetworkRequest(url: server.url + "/bytes/\(size)", timeout: TestTiming.hangGuard)).body
        #expect(body == Data((0..<size).map { UInt8($0 % 251) }))
        let url = server.url
        let outcomes = await withTaskGroup(of: TransportOutcome.self) { group in
            for _ in 0..<16 { group.addTask { await TransportOutcome.of(transport, url) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: .body("tls ok"), count: 16))
        // The relay's socket lives in a directory of this transport's that only this user may enter.
        let attributes = try FileManager.default.attributesOfItem(atPath: transport.relayDirectory)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700, "\(attributes[.posixPermissions] ?? "?")")
        #expect((attributes[.ownerAccountID] as? NSNumber)?.uint32Value == getuid())
        #expect(try FileManager.default.contentsOfDirectory(atPath: transport.relayDirectory).contains { $0.hasSuffix(".sock") })
        withExtendedLifetime(transport) {}
    }

    @Test("routes past the relay limit close the least recently used relays: a server naming new ports cannot make the transport hold a socket for each")
    func relaysBounded() async throws {
        let server = try await TLSPeers.Server()
        let transport = try await Self.transport(pinning: await Self.pin("server"))
        #expect(await TransportOutcome.of(transport, server.url) == .body("tls ok"))
        let ports = try closedLoopbackPorts(AsyncHTTPClientTransport.maximumRelayCount + 6)
        for port in ports {
            let outcome = await TransportOutcome.of(transport, "https://127.0.0.1:\(port)/")
            if case .failed(.cannotConnect) = outcome {} else { Issue.record("port \(port): \(outcome)") }
        }
        #expect(transport.relayCount == AsyncHTTPClientTransport.maximumRelayCount)
        // The evicted relays' sockets go too (closed after the request that evicted them).
        let socketFiles = { (try? FileManager.default.contentsOfDirectory(atPath: transport.relayDirectory))?.count ?? -1 }
        _ = await eventually(within: TestTiming.hangGuard, every: .milliseconds(10)) { socketFiles() <= AsyncHTTPClientTransport.maximumRelayCount }
        #expect(socketFiles() == AsyncHTTPClientTransport.maximumRelayCount)
        // The server's relay was the least recently used and went first; a new one serves it.
        #expect(await TransportOutcome.of(transport, server.url) == .body("tls ok"))
        #expect(transport.relayCount == AsyncHTTPClientTransport.maximumRelayCount)
        withExtendedLifetime(transport) {}
    }

    @Test("a relay a request is using is never closed for the limit: past it while all are in use, back to it once they are done", .timeLimit(.minutes(5)))
    func relaysInUseKept() async throws {
        let server = SilentTCPServer(address: "0.0.0.0")  // 127.0.0.N, one route each: TLS handshakes that never end
        let transport = AsyncHTTPClientTransport(configuration: .init(tls: TLSSettings(
            trustedRoots: .only(try await TLSPeers.pem("ca.pem")), pinnedPublicKeys: try PublicKeyPins().pinning(host: "*", await Self.pin("server")))))
        let count = AsyncHTTPClientTransport.maximumRelayCount + 1
        let calls = (1...count).map { index in
            Task { try await transport.send(try NetworkRequest(url: "https://127.0.0.\(index):\(server.port)/", timeout: .seconds(3600))) }
        }
        // Bounded only to catch a hang; every call's relay connected to the server.
        _ = await eventually(within: TestTiming.hangGuard, every: .milliseconds(10)) { server.accepted >= count }
        #expect(server.accepted >= count)  // its port is open to any peer; the relay count is the check
        #expect(transport.relayCount == count, "a relay in use was closed to keep the limit")
        for call in calls { call.cancel() }
        for call in calls { _ = await call.result }
        #expect(transport.relayCount == AsyncHTTPClientTransport.maximumRelayCount)
        withExtendedLifetime(transport) {}
    }

    @Test("host names are case-insensitive: one relay for LOCALHOST and localhost")
    func relayPerHostIgnoringCase() async throws {
        let transport = try await Self.transport(pinning: await Self.pin("server"), host: "localhost")
        let port = try #require(try closedLoopbackPorts(1).first)
        for host in ["LOCALHOST", "localhost", "LocalHost"] {
            _ = await TransportOutcome.of(transport, "https://\(host):\(port)/")
        }
        #expect(transport.relayCount == 1)
        withExtendedLifetime(transport) {}
    }

    @Test("an origin that accepts the connection and never answers the TLS handshake: a call given up closes the relay's connection to it", .timeLimit(.minutes(5)))
    func stalledHandshake() async throws {
        let server = SilentTCPServer()
        let transport = try await Self.transport(pinning: await Self.pin("server"))
        // The relay's connection ends with the call: nothing else would end it (no TLS handshake
        // timeout, no keep-alive), and every retry would leave one more behind.
        try await server.expectGivenUpCallClosesItsConnection(
            try NetworkRequest(url: "https://127.0.0.1:\(server.port)/", timeout: .seconds(3600)), through: transport, peer: "origin")
    }

    @Test("a valid certificate with another key is a pin mismatch naming the host, and the server gets no request")
    func mismatch() async throws {
        let server = try await TLSPeers.Server(certificate: "other")
        let outcome = await TransportOutcome.of(try await Self.transport(pinning: await Self.pin("server")), server.url)
        #expect(outcome == .failed(.publicKeyPinMismatch(host: "127.0.0.1")))
        #expect(try await Self.requestsServed(by: server) == "0")
    }

    @Test("several pins allow a rotation: either key is accepted")
    func rotation() async throws {
        let pins = "\(try await Self.pin("other"));\(try await Self.pin("server"))"
        for certificate in ["server", "other"] {
            let server = try await TLSPeers.Server(certificate: certificate)
            #expect(await TransportOutcome.of(try await Self.transport(pinning: pins), server.url) == .body("tls ok"), "\(certificate)")
        }
    }

    @Test("a pin never replaces the certificate checks: the right key from an untrusted CA is still refused")
    func pinDoesNotBypassVerification() async throws {
        let server = try await TLSPeers.Server()
        let outcome = await TransportOutcome.of(try await Self.transport(pinning: await Self.pin("server"), roots: .system), server.url)
        guard case .failed(.tls) = outcome else {
            Issue.record("expected a TLS failure, got \(outcome)")
            return
        }
    }

    @Test("hosts without pins connect as usual")
    func otherHostsUnaffected() async throws {
        let server = try await TLSPeers.Server(certificate: "other")
        let transport = try await Self.transport(pinning: await Self.pin("server"), host: "pinned.example")
        #expect(await TransportOutcome.of(transport, server.url) == .body("tls ok"))
    }
}
#endif

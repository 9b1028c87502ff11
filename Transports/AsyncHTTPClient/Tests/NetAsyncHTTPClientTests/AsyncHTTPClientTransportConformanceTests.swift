import NetAsyncHTTPClient
import NetTransport
import Testing

/// `AsyncHTTPClientTransport` against the transport conformance suite; `ConformanceServer.swift`,
/// `LoopbackHTTP.swift` and `TransportConformance.swift` here are links to the root package's
/// copies, so both transports are held to the same checks.
@Suite("Transport conformance: AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportConformanceTests {
    static let transport = AsyncHTTPClientTransport()

    @Test("AsyncHTTPClientTransport", arguments: TransportConformance.checks)
    func conforms(_ check: TransportConformance.Check) async throws {
        try await check.run(Self.transport)
    }
}

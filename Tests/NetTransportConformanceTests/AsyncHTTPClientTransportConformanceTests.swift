#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import NetAsyncHTTPClient
import NetTransport
import Testing

/// `AsyncHTTPClientTransport` against the transport conformance suite, the same checks
/// `URLSessionTransportConformanceTests` runs, so both transports are held to one standard.
@Suite("Transport conformance: AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportConformanceTests {
    static let transport = AsyncHTTPClientTransport()

    @Test("AsyncHTTPClientTransport", arguments: TransportConformance.checks)
    func conforms(_ check: TransportConformance.Check) async throws {
        try await check.run(Self.transport)
    }
}
#endif

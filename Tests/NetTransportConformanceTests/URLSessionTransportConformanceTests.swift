import NetTransport
import Testing

/// `URLSessionTransport` against the transport conformance suite (`TransportConformance.checks`,
/// shared with every transport: AsyncHTTPClientTransportConformanceTests runs it too).
@Suite("Transport conformance: URLSessionTransport")
struct URLSessionTransportConformanceTests {
    static let transport = URLSessionTransport()

    @Test("URLSessionTransport", arguments: TransportConformance.checks)
    func conforms(_ check: TransportConformance.Check) async throws {
        try await check.run(Self.transport)
    }
}

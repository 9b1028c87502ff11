#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import NetAsyncHTTPClient
import NetTransport
import Testing

/// `AsyncHTTPClientTransport` against the fault suite (`TransportFaults.faults`, the same checks
/// `URLSessionTransportFaultTests` runs). It survives every cut point, so none is left out.
@Suite("Transport faults: AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportFaultTests {
    @Test("AsyncHTTPClientTransport", arguments: TransportFaults.faults)
    func survives(_ fault: TransportFaults.Fault) async throws {
        try await fault.run(TransportFaults.Subject(
            make: { AsyncHTTPClientTransport() }, makeLimited: { AsyncHTTPClientTransport(configuration: .init(responseLimits: $0)) }))
    }
}
#endif

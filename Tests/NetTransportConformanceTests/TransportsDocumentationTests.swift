#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Net
import NetAsyncHTTPClient
import Testing

/// Docs/Transports.md's sample, verbatim (the root package's DocumentationCoverageTests checks
/// this file too), run against the conformance server.
@Suite("Docs/Transports.md")
struct TransportsDocumentationTests {
    @Test("The client from the page sends through AsyncHTTPClientTransport")
    func sample() async throws {
        let client = NetworkClient(
            transport: AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 16)),
            interceptors: [RetryPolicy()])

        let response = try await client.requestData(for: try await TransportConformance.url("status/204"))
        #expect(response.statusCode == 204)
    }
}
#endif

#if OpenAPI && AsyncHTTPClient  // the package traits: `swift test --enable-all-traits`
import Foundation
import Net
import NetAsyncHTTPClient
import NetOpenAPI
import Testing

/// Docs/OpenAPI.md's sample, verbatim (the root package's DocumentationCoverageTests checks this
/// file too), run against the generated server.
@Suite("Docs/OpenAPI.md")
struct OpenAPIDocumentationTests {
    /// Stands in for the app's token service.
    struct TokenService: Sendable {
        let token: String
        func fetch() async throws -> String { token }
    }

    @Test("The sample: a generated client with retry, authentication and a cache lists the items")
    func sample() async throws {
        let serverURL = try await OpenAPITestServer.serverURL()
        let tokens = TokenService(token: "token-\(UUID().uuidString)")
        OpenAPITestServer.state.allow(tokens.token)

        let authentication = AuthenticationInterceptor<String>(
            credential: nil,
            header: { .header(key: "Authorization", value: "Bearer \($0)") },
            refresh: { _ in try await tokens.fetch() })
        let session = NetworkClient(
            transport: AsyncHTTPClientTransport(),
            interceptors: [authentication, RetryPolicy()],
            cache: .memory())
        let client = Client(serverURL: serverURL, transport: NetOpenAPITransport(session: session))

        let items = try await client.listItems(query: .init(limit: 10, tag: ["kitchen"])).ok.body.json
        #expect(items.items.map(\.name) == ["kettle", "spoon"])
        let me = try await client.getMe().ok.body.json
        #expect(me.authorization == "Bearer \(tokens.token)")
    }
}
#endif

import Foundation
import Net
import Testing

/// The README's type for the sample that sends a request (the first sample declares its own).
private struct Film: Decodable { let title: String; let year: Int }

/// README.md's Swift samples, verbatim (``DocumentationCoverageTests`` checks), run where they
/// need no network and otherwise compiled.
@Suite("README samples")
struct ReadmeDocumentationSamples {
    @Test("Quick start: the request renders the curl line shown and decodes a response")
    func quickStart() throws {
        struct Film: Decodable { let title: String; let year: Int }

        // Build: every key and value reaches the server exactly as written (`+`, `&`, spaces, emoji…).
        let request = try NetworkRequest(url: "https://www.omdbapi.com/", query: [
            .query(key: "apikey", value: "xxxxxxxx"),
            .query(key: "s", value: "Star Wars: Episode IV"),
        ])

        // Log it safely: credentials and secret-looking parameters are redacted.
        print(request.curl)
        // curl 'https://www.omdbapi.com/?apikey=REDACTED&s=Star%20Wars:%20Episode%20IV'

        // Validate and decode a response (from NetTransport's session, or your own transport):
        func films(from response: NetworkDataResponse) throws -> [Film] {
            try response.validate().jsonDecode([Film].self)
        }

        #expect(request.curl == "curl 'https://www.omdbapi.com/?apikey=REDACTED&s=Star%20Wars:%20Episode%20IV'")
        let response = NetworkDataResponse(
            data: Data(#"[{"title":"A New Hope","year":1977}]"#.utf8),
            response: NetworkResponseHead(statusCode: 200, url: request.url), originalRequest: request)
        #expect(try films(from: response).map(\.year) == [1977])
    }

    /// Compiled only: it sends to omdbapi.com.
    func quickStartClient(request: NetworkRequest) async throws {
        let client = NetworkClient(
            transport: URLSessionTransport(),
            interceptors: [RetryPolicy(), LoggingInterceptor { print($0) }],
            maximumConcurrentRequests: 8)
        let films = try await client.requestData(for: request).validate().jsonDecode([Film].self)
        _ = films
    }

    @Test("A relative URL is a typed error with the message shown")
    func typedError() throws {
        var printed = ""
        func print(_ error: NetworkError) { printed = error.description }
        do {
            _ = try NetworkRequest(url: "api.example.com/items")
        } catch let error as NetworkError {
            print(error)  // Invalid request: invalid URL "api.example.com/items": it is relative; write it in full, …
        }
        #expect(printed.hasPrefix("Invalid request: invalid URL \"api.example.com/items\": it is relative; write it in full, "))
    }
}

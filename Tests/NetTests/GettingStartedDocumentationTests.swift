import Foundation
import Net
import Testing

/// Docs/Getting-started.md's first request, verbatim (``DocumentationCoverageTests`` checks);
/// compiled only, since example.com is a placeholder.
func gettingStartedFirstRequest() async throws {
    struct Release: Decodable { let name: String; let version: String }

    let client = NetworkClient(interceptors: [RetryPolicy()])
    let release = try await client
        .requestData(for: "https://example.com/api/releases/latest")
        .validate()
        .jsonDecode(Release.self)
    print(release.name, release.version)
}

import Foundation
import Net
import Testing

/// Docs/Getting-started.md's first request, verbatim (``DocumentationCoverageTests`` checks);
/// compiled only, since it calls pypi.org.
func gettingStartedFirstRequest() async throws {
    struct Release: Decodable { let version: String }
    struct Project: Decodable { let info: Release }

    let client = NetworkClient(interceptors: [RetryPolicy()])
    let project = try await client
        .requestData(for: "https://pypi.org/pypi/pip/json")
        .validate()
        .jsonDecode(Project.self)
    print("pip", project.info.version)
}

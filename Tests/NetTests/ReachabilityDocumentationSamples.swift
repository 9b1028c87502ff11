import Foundation
import Net
import Testing

/// Docs/Reachability.md samples, verbatim (``DocumentationCoverageTests`` checks); Docs/Multipart.md
/// has its own in `Tests/NetMultipartTests/MultipartDocumentationTests.swift`.
@Suite("Docs/Reachability.md samples")
struct ReachabilityDocumentationSamples {
    @Test("Starting and stopping the notifier; reading the path now")
    func notifier() async throws {
        let reachability = try NetworkReachability()
        Task {
            for try await path in try reachability.startNotifier() {
                print("Connection type: \(path.connection.rawValue)")
            }
            print("Finish Reachability")
        }
        // later, from anywhere:
        reachability.stopNotifier()

        let path = try reachability.currentPath()
        let kind = try reachability.connection   // .ethernet, .wifi, …
        #expect(kind == path.connection)
    }

    /// Compiled only: the page's daemon runs until it is killed.
    func daemon() async throws {
        // Package.swift: .executableTarget(name: "netwatch", dependencies: [.product(name: "NetReachability", package: "Net")])
        let reachability = try NetworkReachability()
        for try await path in try reachability.startNotifier() {
            print(path.connection.rawValue, path.interfaces.map(\.name), path.gateways.compactMap { $0.address?.description })
            fflush(nil)
        }
    }
}

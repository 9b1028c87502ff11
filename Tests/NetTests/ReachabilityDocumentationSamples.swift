import Foundation
import Net
import Testing

/// Docs/Reachability.md and Docs/Multipart.md samples, verbatim (``DocumentationCoverageTests`` checks).
@Suite("Docs/Reachability.md and Docs/Multipart.md samples")
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

    struct Meta: Encodable, Sendable { let year: Int; let tags: [String] }

    @Test("A form with every kind of part")
    func multipartForm() throws {
        let jpegData = Data([0xFF, 0xD8, 0xFF, 0xD9])
        let videoURL = FileManager.default.temporaryDirectory.appendingPathComponent("net-doc-\(UUID().uuidString).mp4")
        try Data(count: 1_000).write(to: videoURL)
        defer { try? FileManager.default.removeItem(at: videoURL) }

        let form: [any NetworkMultipartFormDataConvertible] = [
            // A plain field, text or bytes.
            NetworkMultipartFormDataRequest(name: "title", value: "Ran"),
            // JSON, sent with Content-Type: application/json (keys sorted by default).
            NetworkMultipartFormJsonRequest(name: "meta", value: Meta(year: 1985, tags: ["drama"])),
            // A file from memory; the type comes from the extension unless given.
            NetworkMultipartFormFileRequest(name: "poster", filename: "poster.jpg", value: jpegData),
            // A file from disk, streamed; filename defaults to the file's name.
            NetworkMultipartFormFileRequest(name: "video", fileURL: videoURL),
            // Extra Content-Disposition parameters and part headers.
            NetworkMultipartFormDataRequest(
                name: "notes", value: "subtitled",
                additionalContentDispositionParameters: [ContentDispositionParameter(name: "lang", value: "es")],
                additionalHeaders: [.header(key: "X-Trace", value: "42")]),
        ]
        let request = try NetworkRequest(url: "https://api.example.com/films", multipartForm: form)

        #expect(request.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(try (request.body.contentLength() ?? 0) > 1_000)
    }
}

import Foundation
import Net
import Testing

/// Docs/Caching.md's samples, verbatim (``DocumentationCoverageTests`` checks); compiled only, since
/// they talk to api.example.com. The rules they describe are tested in NetTransportTests.
func cachingDocumentationSamples() async throws {
    // In memory, 16 MiB by default, least recently used out first:
    let client = NetworkClient(transport: URLSessionTransport(), cache: .memory(byteLimit: 32 << 20))

    // On disk, surviving restarts, in a directory you name:
    let cachesDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("MyAppHTTPCache")
    let persistent = NetworkClient(cache: try .disk(directory: cachesDirectory, byteLimit: 128 << 20))

    // For your own NetworkSession, wrap its transport:
    let transport = CachingTransport(URLSessionTransport(), cache: .memory())

    let response = try await client.requestData(for: "https://api.example.com/films")
    switch response.response.cacheStatus {
    case .network: print("from the server")
    case .cache: print("from the cache, \(response.response.headers["Age"] ?? "0") s old")
    case .revalidated: print("from the cache, confirmed by a 304")
    }

    var request = try NetworkRequest(url: "https://api.example.com/films")
    request.cachePolicy = .useProtocolCachePolicy     // the rules above (the default)
    request.cachePolicy = .reloadIgnoringCacheData    // always the network (the answer may be stored)
    request.cachePolicy = .returnCacheDataElseLoad    // any stored answer however old, else the network
    request.cachePolicy = .returnCacheDataDontLoad    // offline: stored answer or a typed error
    do {
        _ = try await client.requestData(for: request)
    } catch NetworkError.transport(.notInCache(let url)) {
        print("nothing stored for \(url)")
    }
    _ = (persistent, transport)
}

@Suite("Docs/Caching.md")
struct CachingDocumentationTests {
    @Test("The offline example's catch pattern matches the error a cache-only miss throws")
    func offlineError() async throws {
        let client = NetworkClient(transport: StubTransport { _ in .text("never asked") }, cache: .memory())
        var request = try NetworkRequest(url: "https://api.example.com/films")
        request.cachePolicy = .returnCacheDataDontLoad
        var reported: String?
        do {
            _ = try await client.requestData(for: request)
        } catch NetworkError.transport(.notInCache(let url)) {
            reported = url
        }
        #expect(reported == "https://api.example.com/films")
    }
}

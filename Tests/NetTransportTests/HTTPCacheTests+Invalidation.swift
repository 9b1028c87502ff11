import Foundation
import NetCore
import NetTestSupport
@testable import NetTransport
import Testing

/// What drops a stored answer (unsafe methods and the URLs they name), the request policies, HEAD
/// and downloads answered from the cache, and the memory storage's limit.
extension HTTPCacheTests {
    @Test("A successful POST to a URL drops what is stored for it")
    func invalidation() async throws {
        let (id, url) = try await Self.resource(["cc": "max-age=60"])
        _ = try await client.requestData(for: url)
        #expect(try await client.requestData(for: url).response.cacheStatus == .cache)
        let post = try NetworkRequest(url: url, httpMethod: .post, httpBody: Data("x".utf8))
        #expect(try await client.requestData(for: post).statusCode == 200)
        #expect(try await client.requestData(for: url).response.cacheStatus == .network)
        #expect(try await Self.hits(id) == (2, 0))
    }

    @Test("An unsafe request answered 3xx drops what is stored for its URL (a 303 followed, a 300 not followed); one answered 4xx or 5xx drops nothing")
    func invalidationByStatus() async throws {
        for status in [300, 303, 404, 500] {
            let (_, elsewhere) = try await Self.resource()
            // The GET and the POST share one URL, so the query that sets the POST's status is
            // part of the stored answer's key too; the GET's handler ignores it.
            let (id, url) = try await Self.resource(["cc": "max-age=60", "unsafe-status": "\(status)", "location": elsewhere.path])
            _ = try await client.requestData(for: url)
            #expect(try await client.requestData(for: url).response.cacheStatus == .cache, "\(status)")
            let post = try await client.requestData(for: NetworkRequest(url: url, httpMethod: .post, httpBody: Data("x".utf8)))
            // A 303 is followed with a GET to `location`; the others are the POST's own answer.
            #expect(post.statusCode.rawValue == (status == 303 ? 200 : status), "\(status)")
            let after = try await client.requestData(for: url).response.cacheStatus
            #expect(after == ((300..<400).contains(status) ? .network : .cache), "\(status)")
            #expect(try await Self.hits(id) == ((300..<400).contains(status) ? 2 : 1, 0), "\(status)")
        }
    }

    @Test("PUT, PATCH and DELETE drop what is stored for their URL, and for the same-origin Location and Content-Location they name; another origin's is kept")
    func unsafeMethodsInvalidate() async throws {
        for method in [NetworkHttpMethod.put, .patch, .delete] {
            let (id, url) = try await Self.resource(["cc": "max-age=60"])
            _ = try await client.requestData(for: url)
            #expect(try await client.requestData(for: url).response.cacheStatus == .cache)
            #expect(try await client.requestData(for: NetworkRequest(url: url, httpMethod: method, httpBody: Data("x".utf8))).statusCode == 200)
            #expect(try await client.requestData(for: url).response.cacheStatus == .network, "\(method)")
            #expect(try await Self.hits(id) == (2, 0), "\(method)")
        }
        let (locationID, location) = try await Self.resource(["cc": "max-age=60"])
        let (contentID, contentLocation) = try await Self.resource(["cc": "max-age=60"])
        let foreign = try #require(URL(string: location.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")))
        for url in [location, contentLocation, foreign] { _ = try await client.requestData(for: url) }
        let (_, target) = try await Self.resource()
        var components = try #require(URLComponents(url: target, resolvingAgainstBaseURL: false))
        components.query = nil
        components.queryItems = [URLQueryItem(name: "location", value: location.path + "?" + (location.query ?? "")),
                                 URLQueryItem(name: "content-location", value: contentLocation.absoluteString)]
        _ = try await client.requestData(for: NetworkRequest(url: try #require(components.url), httpMethod: .post, httpBody: Data("x".utf8)))
        #expect(try await client.requestData(for: location).response.cacheStatus == .network)
        #expect(try await client.requestData(for: contentLocation).response.cacheStatus == .network)
        #expect(try await client.requestData(for: foreign).response.cacheStatus == .cache, "another origin's entry is not dropped")
        #expect(try await Self.hits(locationID) == (3, 0))
        #expect(try await Self.hits(contentID) == (2, 0))
    }

    @Test("Policies: reload ignores the cache; cache-else-load and cache-only work offline; no entry offline is a typed error")
    func policies() async throws {
        let (id, url) = try await Self.resource(["cc": "max-age=0", "etag": "\"e\""])  // stored, always stale
        _ = try await client.requestData(for: url)
        var reload = try NetworkRequest(url: url)
        reload.cachePolicy = .reloadIgnoringCacheData
        #expect(try await client.requestData(for: reload).response.cacheStatus == .network)
        #expect(try await Self.hits(id) == (2, 0))

        let offline = offlineClient
        var cacheOnly = try NetworkRequest(url: url)
        cacheOnly.cachePolicy = .returnCacheDataDontLoad
        #expect(try await offline.requestData(for: cacheOnly).response.cacheStatus == .cache)
        var cacheElseLoad = try NetworkRequest(url: url)
        cacheElseLoad.cachePolicy = .returnCacheDataElseLoad
        #expect(try await offline.requestData(for: cacheElseLoad).response.cacheStatus == .cache)
        var missing = try NetworkRequest(url: try await CacheServer.url("cache/never-fetched"))
        missing.cachePolicy = .returnCacheDataDontLoad
        await #expect {
            _ = try await offline.requestData(for: missing)
        } throws: { error in
            guard case .transport(.notInCache(let named)) = error as? NetworkError else { return false }
            return named == missing.url.absoluteString
        }
        // The protocol's rules need the server to revalidate a stale entry: offline, that fails.
        await #expect(throws: NetworkError.self) { _ = try await offline.requestData(for: url) }
    }

    @Test("HEAD is answered from a stored GET; downloads to a file are served from the cache too")
    func headAndDownload() async throws {
        let (id, url) = try await Self.resource(["cc": "max-age=60", "size": "5000"])
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await client.requestDownload(for: url, to: directory.appendingPathComponent("a"))
        let second = try await client.requestDownload(for: url, to: directory.appendingPathComponent("b"))
        #expect(first.response.cacheStatus == .network && second.response.cacheStatus == .cache)
        #expect(try Data(contentsOf: second.url) == (try Data(contentsOf: first.url)))
        for file in [first.url, second.url] {
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber == 0o600)
        }
        let head = try await client.requestData(for: NetworkRequest(url: url, httpMethod: .head))
        #expect(head.response.cacheStatus == .cache && head.data.isEmpty)
        #expect(try await Self.hits(id) == (1, 0))
    }

    @Test("The memory storage evicts the least recently used response to stay under its byte limit")
    func leastRecentlyUsed() async throws {
        // Room for three entries of this size, not four (one is counted as its body, header fields and URL).
        let probe = MemoryCacheStorage()
        _ = try await NetworkClient(transport: URLSessionTransport(), cache: HTTPCache(storage: probe))
            .requestData(for: try await Self.resource(["cc": "max-age=60", "size": "1000"]).url)
        let limit = probe.byteCount * 7 / 2
        let storage = MemoryCacheStorage(byteLimit: limit)
        let client = NetworkClient(transport: URLSessionTransport(), cache: HTTPCache(storage: storage))
        var resources: [(id: String, url: URL)] = []
        for _ in 0..<3 { resources.append(try await Self.resource(["cc": "max-age=60", "size": "1000"])) }
        for resource in resources { _ = try await client.requestData(for: resource.url) }
        #expect(storage.keys.count == 3)
        #expect(try await client.requestData(for: resources[0].url).response.cacheStatus == .cache)  // a is now recent
        let fourth = try await Self.resource(["cc": "max-age=60", "size": "1000"])
        _ = try await client.requestData(for: fourth.url)
        #expect(storage.byteCount <= limit && storage.keys.count == 3)
        #expect(try await client.requestData(for: resources[1].url).response.cacheStatus == .network)  // b was evicted
        #expect(try await client.requestData(for: resources[0].url).response.cacheStatus == .cache)
    }

    @Test("What an entry holds besides its body counts against the limit: the request's Vary values and each header field")
    func heldBytesCounted() async throws {
        // Vary: X-Big keeps the request's whole X-Big field with the entry (a credential's, a
        // Cookie's, only as its digest). (Two names: the server then leaves the varied value out
        // of the body, which stays small.)
        let storage = MemoryCacheStorage(byteLimit: 8_000)
        let client = NetworkClient(transport: URLSessionTransport(), cache: HTTPCache(storage: storage))
        let (_, url) = try await Self.resource(["cc": "max-age=60", "vary": "X-Big, Accept-Language", "size": "10"])
        let small = try NetworkRequest(url: url, headers: [NetworkHeader(name: "X-Big", value: "a=1")])
        let large = try NetworkRequest(url: url, headers: [NetworkHeader(name: "X-Big", value: "a=" + String(repeating: "x", count: 20_000))])
        _ = try await client.requestData(for: small)
        #expect(try await client.requestData(for: small).response.cacheStatus == .cache)  // the control
        #expect(try await client.requestData(for: large).response.statusCode == 200)
        #expect(storage.byteCount <= 8_000)
        #expect(try await client.requestData(for: large).response.cacheStatus == .network, "a 20 kB Vary value was kept under an 8 kB limit")

        // 2,000 fields of three bytes each hold far more than their text.
        let entry = CachedResponse(
            method: "GET", statusCode: 200, headerFields: (0..<2_000).map { ["a\($0 % 10)", "b"] }, url: url,
            body: Data(), requestTime: Date(), responseTime: Date(), varyValues: [:])
        let fields = MemoryCacheStorage(byteLimit: 64_000)
        fields.setVariants([entry], forKey: "k")
        #expect(fields.variants(forKey: "k").isEmpty, "2,000 header fields counted as \(fields.byteCount) bytes")

        // The key (method and URL) is held too: a 20 kB key does not fit a 10 kB storage.
        let empty = CachedResponse(
            method: "GET", statusCode: 200, headerFields: [], url: url, body: Data(), requestTime: Date(), responseTime: Date(), varyValues: [:])
        let keyed = MemoryCacheStorage(byteLimit: 10_000)
        keyed.setVariants([empty], forKey: "GET " + String(repeating: "k", count: 20_000))
        #expect(keyed.byteCount == 0 && keyed.keys.isEmpty)
        keyed.setVariants([empty], forKey: "GET short")
        #expect(keyed.keys == ["GET short"] && keyed.byteCount == empty.byteCount + "GET short".utf8.count + 64)
    }
}

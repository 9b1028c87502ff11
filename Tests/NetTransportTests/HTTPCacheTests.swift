import Foundation
import NetCore
import NetTestSupport
@testable import NetTransport
import Testing

/// The HTTP cache over URLSessionTransport against a loopback server that sets the caching headers.
@Suite("HTTP cache against a real server")
struct HTTPCacheTests {
    let cache = HTTPCache.memory()
    var client: NetworkClient { NetworkClient(transport: URLSessionTransport(), cache: cache) }

    /// A resource of the test's own on the cache server, with those query parameters.
    static func resource(_ parameters: [String: String] = [:]) async throws -> (id: String, url: URL) {
        let id = UUID().uuidString
        var components = try #require(URLComponents(url: try await CacheServer.url("cache/\(id)"), resolvingAgainstBaseURL: false))
        components.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return (id, try #require(components.url))
    }

    /// (full responses, 304s) the server sent for `id`.
    static func hits(_ id: String) async throws -> (Int, Int) {
        let (data, _) = try await URLSessionTransport().send(NetworkRequest(url: try await CacheServer.url("hits/\(id)"))).asPair
        let parts = String(decoding: data, as: UTF8.self).split(separator: ",").compactMap { Int($0) }
        return (parts.first ?? -1, parts.last ?? -1)
    }

    @Test("A fresh response is served from the cache, with its Age, without a request")
    func fresh() async throws {
        let (id, url) = try await Self.resource(["cc": "max-age=60"])
        let first = try await client.requestData(for: url)
        let second = try await client.requestData(for: url)
        #expect(first.response.cacheStatus == .network && second.response.cacheStatus == .cache)
        #expect(second.data == first.data && String(decoding: second.data, as: UTF8.self).hasSuffix("#1 -"))
        #expect(second.response.headers["Age"] != nil)
        #expect(try await Self.hits(id) == (1, 0))
    }

    @Test("A response is served while fresh and fetched again once expired, on the client's clock")
    func expiry() async throws {
        let clock = ManualClock()
        let client = NetworkClient(transport: URLSessionTransport(), cache: cache, clock: clock)
        let (id, url) = try await Self.resource(["cc": "max-age=60"])
        _ = try await client.requestData(for: url)
        clock.advance(by: .seconds(59))
        #expect(try await client.requestData(for: url).response.cacheStatus == .cache)
        clock.advance(by: .seconds(2))
        let later = try await client.requestData(for: url)
        #expect(later.response.cacheStatus == .network && String(decoding: later.data, as: UTF8.self).contains("#2"))
        #expect(try await Self.hits(id) == (2, 0))
    }

    @Test("no-cache with an ETag: revalidated by If-None-Match; the 304's headers update the stored ones")
    func etag() async throws {
        let (id, url) = try await Self.resource(["cc": "no-cache", "etag": "\"v1\""])
        let first = try await client.requestData(for: url)
        let second = try await client.requestData(for: url)
        let third = try await client.requestData(for: url)
        #expect(first.response.cacheStatus == .network)
        #expect(second.response.cacheStatus == .revalidated && third.response.cacheStatus == .revalidated)
        #expect(second.data == first.data && third.data == first.data)
        #expect(third.response.headers["X-Revalidated"] == "2")
        #expect(try await Self.hits(id) == (1, 2))
    }

    @Test("A stale response with Last-Modified is revalidated by If-Modified-Since")
    func lastModified() async throws {
        try await expectRevalidatedBeforeUse(["cc": "max-age=0", "lm": "Tue, 14 Nov 2023 22:13:20 GMT"])
    }

    /// Fetches a resource with these parameters twice: the second answer must be the stored body,
    /// revalidated by one 304 before it was served (the server saw one full request and one 304).
    func expectRevalidatedBeforeUse(_ parameters: [String: String]) async throws {
        let (id, url) = try await Self.resource(parameters)
        let first = try await client.requestData(for: url)
        let second = try await client.requestData(for: url)
        #expect(second.response.cacheStatus == .revalidated && second.data == first.data, "\(parameters)")
        #expect(try await Self.hits(id) == (1, 1), "\(parameters)")
    }

    /// A client whose transport reaches nothing, in front of the same cache: what it answers is stored.
    var offlineClient: NetworkClient {
        NetworkClient(transport: StubTransport { _ in .failure(.cannotConnect("offline")) }, cache: cache)
    }

    @Test("Vary keeps one variant per value of the named request header")
    func vary() async throws {
        let (id, url) = try await Self.resource(["cc": "max-age=60", "vary": "Accept-Language"])
        func get(_ language: String) async throws -> NetworkDataResponse {
            try await client.requestData(for: NetworkRequest(url: url, headers: [.header(key: "Accept-Language", value: language)]))
        }
        let english = try await get("en")
        let french = try await get("fr")
        let englishAgain = try await get("en")
        let frenchAgain = try await get("fr")
        #expect([english, french, englishAgain, frenchAgain].map(\.response.cacheStatus) == [.network, .network, .cache, .cache])
        #expect(String(decoding: englishAgain.data, as: UTF8.self).hasSuffix(" en") && String(decoding: frenchAgain.data, as: UTF8.self).hasSuffix(" fr"))
        #expect(try await get("de").response.cacheStatus == .network)
        #expect(try await Self.hits(id) == (3, 0))
    }

    @Test("stale-while-revalidate: the stale response is served at once and revalidated in the background")
    func staleWhileRevalidate() async throws {
        let (id, url) = try await Self.resource(["cc": "max-age=0, stale-while-revalidate=60", "etag": "\"s\""])
        let first = try await client.requestData(for: url)
        let second = try await client.requestData(for: url)
        #expect(second.response.cacheStatus == .cache && second.data == first.data)
        // The revalidation runs in the background: wait for the server to have seen it (bounded
        // only to catch a revalidation that never comes; a busy machine may take a while).
        _ = try await eventually(within: TestTiming.scaled(.seconds(20)), every: .milliseconds(20)) { try await Self.hits(id) == (1, 1) }
        #expect(try await Self.hits(id) == (1, 1))
    }

    @Test("stale-while-revalidate revalidates with the stored validators, not a caller's own")
    func staleWhileRevalidateStoredValidators() async throws {
        let (id, url) = try await Self.resource(["cc": "max-age=0, stale-while-revalidate=60", "etag": "\"s\""])
        _ = try await client.requestData(for: url)
        // The caller holds another version; the stale entry is its answer at once, and the cache
        // asks about its own copy: a 304, not a full answer to the caller's validator.
        let conditional = try NetworkRequest(url: url, headers: [.header(key: "If-None-Match", value: "\"other\"")])
        #expect(try await client.requestData(for: conditional).response.cacheStatus == .cache)
        _ = try await eventually(within: TestTiming.scaled(.seconds(20)), every: .milliseconds(20)) { try await Self.hits(id) != (1, 0) }
        #expect(try await Self.hits(id) == (1, 1))
    }

    @Test("must-revalidate forbids serving stale, even within stale-while-revalidate: revalidated before it is served")
    func mustRevalidate() async throws {
        // The 304 comes before the answer, not in the background.
        try await expectRevalidatedBeforeUse(["cc": "max-age=0, stale-while-revalidate=60, must-revalidate", "etag": "\"m\""])
    }

    @Test("A 304's own Set-Cookie reaches the client's CookieJar, though the stored response keeps none")
    func cookieOnRevalidation() async throws {
        let (id, url) = try await Self.resource(["cc": "no-cache", "etag": "\"c\"", "cookie304": "revalidated=yes"])
        let jar = CookieJar()
        let client = NetworkClient(transport: URLSessionTransport(), cache: cache, cookieJar: jar)
        _ = try await client.requestData(for: url)
        #expect(jar.cookies.isEmpty)
        #expect(try await client.requestData(for: url).response.cacheStatus == .revalidated)
        #expect(jar.cookies.map { "\($0.name)=\($0.value)" } == ["revalidated=yes"])
        #expect(try await Self.hits(id) == (1, 1))
    }

    @Test("A response's Set-Cookie is never stored: a hit carries none, and a cookie deleted since stays deleted")
    func setCookieNotStored() async throws {
        let (id, url) = try await Self.resource(["cc": "max-age=60", "cookie": "session=first"])
        let jar = CookieJar()
        let client = NetworkClient(transport: URLSessionTransport(), cache: cache, cookieJar: jar)
        let first = try await client.requestData(for: url)
        #expect(first.response.headers["Set-Cookie"] == "session=first")  // the control: the server set it
        #expect(jar.cookies.map { "\($0.name)=\($0.value)" } == ["session=first"])
        try jar.removeAll()
        let hit = try await client.requestData(for: url)
        #expect(hit.response.cacheStatus == .cache)
        #expect(hit.response.headers["Set-Cookie"] == nil)
        #expect(jar.cookies.isEmpty, "a cache hit brought back a deleted cookie")
        #expect(try await Self.hits(id) == (1, 0))
    }

    @Test("Stored by status: by default (404), with explicit freshness another 2xx (299); never a 206 or a 503, fresh or not")
    func statuses() async throws {
        for (status, stored) in [(404, true), (299, true), (206, false), (503, false)] {
            let (id, url) = try await Self.resource(["cc": "max-age=60", "status": "\(status)"])
            _ = try await client.requestData(for: url)
            let second = try await client.requestData(for: url)
            #expect(second.statusCode.rawValue == status)
            #expect((second.response.cacheStatus == .cache) == stored, "\(status): \(second.response.cacheStatus)")
            #expect(try await Self.hits(id) == (stored ? 1 : 2, 0), "\(status)")
        }
    }

    @Test("A revalidation answered with a new 200 replaces the stored response")
    func replacedOnRevalidation() async throws {
        let (id, url) = try await Self.resource(["cc": "no-cache", "etag": "\"r\"", "changed": "1"])
        _ = try await client.requestData(for: url)
        let second = try await client.requestData(for: url)
        #expect(second.response.cacheStatus == .network)
        #expect(String(decoding: second.data, as: UTF8.self).hasPrefix("\(id) #2"))
        // What is stored now is the second answer, read without the network.
        var stored = try NetworkRequest(url: url)
        stored.cachePolicy = .returnCacheDataDontLoad
        #expect(String(decoding: try await offlineClient.requestData(for: stored).data, as: UTF8.self).hasPrefix("\(id) #2"))
        #expect(try await Self.hits(id) == (2, 0))
    }

    @Test("A request's Pragma: no-cache revalidates a fresh response")
    func pragmaNoCache() async throws {
        let (id, url) = try await Self.resource(["cc": "max-age=60", "etag": "\"p\""])
        _ = try await client.requestData(for: url)
        let pragma = [NetworkHeader.header(key: "Pragma", value: "no-cache")]
        #expect(try await client.requestData(for: NetworkRequest(url: url, headers: pragma)).response.cacheStatus == .revalidated)
        #expect(try await Self.hits(id) == (1, 1))
    }

    @Test("A reload (request no-cache) revalidates, except an immutable response while fresh")
    func reloadAndImmutable() async throws {
        let reload = [NetworkHeader.header(key: "Cache-Control", value: "no-cache")]
        let (id, url) = try await Self.resource(["cc": "max-age=60", "etag": "\"m\""])
        _ = try await client.requestData(for: url)
        #expect(try await client.requestData(for: NetworkRequest(url: url, headers: reload)).response.cacheStatus == .revalidated)
        #expect(try await Self.hits(id) == (1, 1))
        let (immutableID, immutableURL) = try await Self.resource(["cc": "max-age=60, immutable", "etag": "\"i\""])
        _ = try await client.requestData(for: immutableURL)
        #expect(try await client.requestData(for: NetworkRequest(url: immutableURL, headers: reload)).response.cacheStatus == .cache)
        #expect(try await Self.hits(immutableID) == (1, 0))
    }

    @Test("no-store is never stored")
    func noStore() async throws {
        let (id, url) = try await Self.resource(["cc": "no-store, max-age=60"])
        _ = try await client.requestData(for: url)
        #expect(try await client.requestData(for: url).response.cacheStatus == .network)
        #expect(try await Self.hits(id) == (2, 0))
    }

    @Test("Not stored: Vary: *, a response with neither freshness nor a validator, a body over maximumEntrySize")
    func notStored() async throws {
        let small = HTTPCache(storage: MemoryCacheStorage(), maximumEntrySize: 10_000)
        let cases: [[String: String]] = [["cc": "max-age=60", "vary": "*"], [:], ["cc": "max-age=60", "size": "10001"]]
        for parameters in cases {
            let (id, url) = try await Self.resource(parameters)
            let client = NetworkClient(transport: URLSessionTransport(), cache: small)
            _ = try await client.requestData(for: url)
            #expect(try await client.requestData(for: url).response.cacheStatus == .network, "\(parameters)")
            #expect(try await Self.hits(id) == (2, 0), "\(parameters)")
        }
        // The control: the same size within the limit is stored.
        let (id, url) = try await Self.resource(["cc": "max-age=60", "size": "10000"])
        let client = NetworkClient(transport: URLSessionTransport(), cache: small)
        _ = try await client.requestData(for: url)
        #expect(try await client.requestData(for: url).response.cacheStatus == .cache)
        #expect(try await Self.hits(id) == (1, 0))
    }

    @Test("max-age=0 with an ETag is stored but revalidated before every use")
    func maxAgeZero() async throws {
        try await expectRevalidatedBeforeUse(["cc": "max-age=0", "etag": "\"z\""])
    }

    @Test("Kept per credential, an authorised answer is stored like any; shared, only when it says public, s-maxage or must-revalidate")
    func authorisation() async throws {
        let authorised = [NetworkHeader.header(key: "Authorization", value: "Bearer t")]
        let (ownID, ownURL) = try await Self.resource(["cc": "max-age=60"])
        _ = try await client.requestData(for: NetworkRequest(url: ownURL, headers: authorised))
        #expect(try await client.requestData(for: NetworkRequest(url: ownURL, headers: authorised)).response.cacheStatus == .cache)
        #expect(try await Self.hits(ownID) == (1, 0))
        // RFC 9111 §3.5, for a cache that does not keep answers apart per credential.
        let client = NetworkClient(transport: URLSessionTransport(), cache: .memory(separatesCredentials: false))
        let (privateID, privateURL) = try await Self.resource(["cc": "max-age=60"])
        _ = try await client.requestData(for: NetworkRequest(url: privateURL, headers: authorised))
        #expect(try await client.requestData(for: NetworkRequest(url: privateURL, headers: authorised)).response.cacheStatus == .network)
        #expect(try await Self.hits(privateID) == (2, 0))
        let (publicID, publicURL) = try await Self.resource(["cc": "public, max-age=60"])
        _ = try await client.requestData(for: NetworkRequest(url: publicURL, headers: authorised))
        #expect(try await client.requestData(for: NetworkRequest(url: publicURL, headers: authorised)).response.cacheStatus == .cache)
        #expect(try await Self.hits(publicID) == (1, 0))
        for directive in ["s-maxage=60, max-age=60", "must-revalidate, max-age=60"] {
            let (id, url) = try await Self.resource(["cc": directive])
            _ = try await client.requestData(for: NetworkRequest(url: url, headers: authorised))
            #expect(try await client.requestData(for: NetworkRequest(url: url, headers: authorised)).response.cacheStatus == .cache, "\(directive)")
            #expect(try await Self.hits(id) == (1, 0), "\(directive)")
        }
    }

    @Test("An answer fetched with one user's credentials is never served to another user's request, nor to one without them")
    func perCredential() async throws {
        func user(_ name: String, _ field: String) -> [NetworkHeader] { [.header(key: field, value: name)] }
        for (field, directive) in [("Authorization", "private, must-revalidate, max-age=60"), ("Cookie", "private, max-age=60"),
                                   ("X-API-Key", "max-age=60")] {
            let (id, url) = try await Self.resource(["cc": directive])
            let alice = try await client.requestData(for: NetworkRequest(url: url, headers: user("alice", field)))
            #expect(alice.response.cacheStatus == .network)
            // Alice again: her own answer, from the cache.
            let again = try await client.requestData(for: NetworkRequest(url: url, headers: user("alice", field)))
            #expect(again.response.cacheStatus == .cache && again.data == alice.data, "\(field)")
            // Bob, and a request with no credentials: each to the server, never Alice's answer.
            for headers in [user("bob", field), []] {
                let other = try await client.requestData(for: NetworkRequest(url: url, headers: headers))
                #expect(other.response.cacheStatus == .network && other.data != alice.data, "\(field) \(headers)")
            }
            #expect(try await Self.hits(id) == (3, 0), "\(field)")
        }
        // Fetched without credentials first: not served to a user, whom the server may answer otherwise.
        let (anonymousID, anonymousURL) = try await Self.resource(["cc": "max-age=60"])
        _ = try await client.requestData(for: anonymousURL)
        #expect(try await client.requestData(for: anonymousURL).response.cacheStatus == .cache)
        let signedIn = try await client.requestData(for: NetworkRequest(url: anonymousURL, headers: user("alice", "Authorization")))
        #expect(signedIn.response.cacheStatus == .network)
        #expect(try await Self.hits(anonymousID) == (2, 0))
        // Marked public: shared whatever the credentials.
        let (publicID, publicURL) = try await Self.resource(["cc": "public, max-age=60"])
        _ = try await client.requestData(for: NetworkRequest(url: publicURL, headers: user("alice", "Authorization")))
        #expect(try await client.requestData(for: NetworkRequest(url: publicURL, headers: user("bob", "Authorization"))).response.cacheStatus == .cache)
        #expect(try await client.requestData(for: publicURL).response.cacheStatus == .cache)
        #expect(try await Self.hits(publicID) == (1, 0))
        // Not for shared caches after all: private, or an s-maxage of zero, stays Alice's.
        for directive in ["private, max-age=60, s-maxage=60", "max-age=60, s-maxage=0"] {
            let (id, url) = try await Self.resource(["cc": directive])
            _ = try await client.requestData(for: NetworkRequest(url: url, headers: user("alice", "Authorization")))
            #expect(try await client.requestData(for: NetworkRequest(url: url, headers: user("alice", "Authorization"))).response.cacheStatus == .cache, "\(directive)")
            #expect(try await client.requestData(for: NetworkRequest(url: url, headers: user("bob", "Authorization"))).response.cacheStatus == .network, "\(directive)")
            #expect(try await Self.hits(id) == (2, 0), "\(directive)")
        }
        // Turned off, for one user's rotating cookie: the answer is served whatever the cookie.
        let oneUser = NetworkClient(transport: URLSessionTransport(), cache: .memory(separatesCredentials: false))
        let (rotatingID, rotatingURL) = try await Self.resource(["cc": "max-age=60"])
        _ = try await oneUser.requestData(for: NetworkRequest(url: rotatingURL, headers: user("lb=1", "Cookie")))
        #expect(try await oneUser.requestData(for: NetworkRequest(url: rotatingURL, headers: user("lb=2", "Cookie"))).response.cacheStatus == .cache)
        #expect(try await Self.hits(rotatingID) == (1, 0))
    }

    @Test("A stored credential is a digest, never the value sent")
    func credentialDigests() async throws {
        let (_, url) = try await Self.resource(["cc": "max-age=60"])
        _ = try await client.requestData(for: NetworkRequest(url: url, headers: [.header(key: "Authorization", value: "Bearer secret-token")]))
        let stored = try #require(cache.storage.variants(forKey: HTTPCache.key(method: "GET", url: url)).first)
        let value = try #require(stored.varyValues["authorization"] ?? nil)
        #expect(value.hasPrefix("sha256:") && value.count == 7 + 64 && !value.contains("secret-token"))
    }

    @Test("At most 64 variants of one resource are kept, the most recently stored: 70 users' answers keep the last 64")
    func variantsPerKey() async throws {
        let (id, url) = try await Self.resource(["cc": "max-age=60"])
        func user(_ index: Int) throws -> NetworkRequest { try NetworkRequest(url: url, headers: [.header(key: "X-API-Key", value: "user-\(index)")]) }
        for index in 0..<70 { _ = try await client.requestData(for: user(index)) }
        #expect(HTTPCache.maximumVariantsPerKey == 64)
        #expect(try await client.requestData(for: user(69)).response.cacheStatus == .cache)
        #expect(try await client.requestData(for: user(6)).response.cacheStatus == .cache)
        #expect(try await client.requestData(for: user(5)).response.cacheStatus == .network)
        #expect(try await Self.hits(id) == (71, 0))
    }

    @Test("A 304 to a caller's validator for a newer version than the stored one goes to the caller, never the stored body under it")
    func callersNewerValidator() async throws {
        let (id, url) = try await Self.resource(["cc": "no-cache", "etag": "current"])
        // Version v1 is stored.
        let stored = try await client.requestData(for: NetworkRequest(url: url, headers: [.header(key: "X-Current", value: "\"v1\"")]))
        #expect(stored.response.cacheStatus == .network && stored.response.headers["ETag"] == "\"v1\"")
        // The resource is now v2, which the caller holds and asks about: the server's 304 is for v2.
        let answer = try await client.requestData(for: NetworkRequest(url: url, headers: [
            .header(key: "X-Current", value: "\"v2\""), .header(key: "If-None-Match", value: "\"v2\""),
        ]))
        #expect(answer.statusCode == 304 && answer.data.isEmpty, "the stored v1 body was served for v2: \(answer.statusCode)")
        #expect(try await Self.hits(id) == (1, 1))
    }

    @Test("A small storage keeps at most half its limit for one resource's variants, the newest first")
    func variantsByteBudget() async throws {
        try await Self.expectHalfLimitForOneResource(in: MemoryCacheStorage(byteLimit: 1 << 20))
    }

    /// Four users' answers of 200 kB to one resource, in a storage of 1 MiB: 512 KiB for the
    /// resource keeps the last two.
    static func expectHalfLimitForOneResource(in storage: any HTTPCacheStorage) async throws {
        let client = NetworkClient(transport: URLSessionTransport(), cache: HTTPCache(storage: storage))
        let (id, url) = try await Self.resource(["cc": "max-age=60", "size": "200000"])
        func user(_ index: Int) throws -> NetworkRequest { try NetworkRequest(url: url, headers: [.header(key: "X-API-Key", value: "user-\(index)")]) }
        for index in 0..<4 { _ = try await client.requestData(for: user(index)) }
        #expect(try await client.requestData(for: user(3)).response.cacheStatus == .cache)
        #expect(try await client.requestData(for: user(2)).response.cacheStatus == .cache)
        #expect(try await client.requestData(for: user(1)).response.cacheStatus == .network)
        #expect(try await Self.hits(id) == (5, 0))
    }

    @Test("A caller's own If-None-Match gets the server's 304, not the stored body of another version")
    func callersOwnValidator() async throws {
        let (id, url) = try await Self.resource(["cc": "no-cache", "etag": "\"v1\""])
        let stored = try await client.requestData(for: url)
        #expect(stored.response.cacheStatus == .network)
        // The caller holds version v1 itself and asks whether it is current: the 304 is its answer.
        let conditional = try NetworkRequest(url: url, headers: [.header(key: "If-None-Match", value: "\"v1\"")])
        let answer = try await client.requestData(for: conditional)
        #expect(answer.statusCode == 304 && answer.data.isEmpty)
        // A validator for another version: the server's full answer, never the stored one relabelled.
        let other = try NetworkRequest(url: url, headers: [.header(key: "If-None-Match", value: "\"v0\"")])
        let full = try await client.requestData(for: other)
        #expect(full.statusCode == 200 && full.response.cacheStatus == .network && full.data != stored.data)
        #expect(try await Self.hits(id) == (2, 1))
    }

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

extension TransportResponse {
    /// The body and status, for one-line test assertions.
    var asPair: (Data, Int) { (body, head.statusCode.rawValue) }
}

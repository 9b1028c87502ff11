import Foundation
import NetCore
import NetTestSupport
@testable import NetTransport
import Testing

/// The cache and credentials, variants and a caller's own validators: what one user's request may
/// be answered with, and how many variants of one resource are kept.
extension HTTPCacheTests {
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
}

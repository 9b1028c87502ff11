import Foundation
import NetCore
@testable import NetTransport
import Testing

/// RFC 9111's freshness rules, the groundwork of the response cache (issue 10).
@Suite("Cache-Control parsing and freshness")
struct CacheFreshnessTests {
    @Test("Directives parse case-insensitively across fields; quoted values and unknown ones are handled")
    func parsing() {
        let control = CacheControl(fields: ["Max-Age=60, no-cache=\"Set-Cookie, X-A\"", "PRIVATE, immutable, foo=\"a,b\", stale-while-revalidate=30"])
        #expect(control.maxAge == .seconds(60))
        #expect(control.noCache && control.isPrivate && control.immutable)
        #expect(control.staleWhileRevalidate == .seconds(30))
        #expect(!control.noStore && !control.isPublic && !control.mustRevalidate)
        #expect(CacheControl(fields: ["max-age=60, max-age=5"]).maxAge == .seconds(60))
        // Quoted pairs read as the characters they escape (RFC 9110 §5.6.4), a comma inside kept.
        let quoted = CacheControl.split(#"foo="a\"b, c\\d", bar="\x""#)
        #expect(quoted.map(\.0) == ["foo", "bar"])
        #expect(quoted.map(\.1) == [#"a"b, c\d"#, "x"])
        #expect(CacheControl(fields: ["max-age=soon"]).maxAge == .zero)  // invalid max-age: stale
        #expect(CacheControl(fields: ["max-age=99999999999999999999"]).maxAge == .seconds(9_999_999_999))
        #expect(CacheControl(fields: ["max-age=00000000001234"]).maxAge == .seconds(1_234))  // leading zeros count for nothing
        #expect(CacheControl(fields: ["max-age=0000000000000000000000"]).maxAge == .zero)
        #expect(CacheControl(fields: ["no-store, public, must-revalidate, s-maxage=10"]) == {
            var expected = CacheControl()
            expected.noStore = true
            expected.isPublic = true
            expected.mustRevalidate = true
            expected.sharedMaxAge = .seconds(10)
            return expected
        }())
    }

    private func headers(_ pairs: [(String, String)]) throws -> NetworkHeaders {
        try NetworkHeaders(pairs.map { NetworkHeader(name: $0.0, value: $0.1) })
    }

    private let epoch = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT

    @Test("max-age wins over Expires; age counts Age, the apparent age and the network delay")
    func maxAge() throws {
        let fields = try headers([("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), ("Expires", "Tue, 14 Nov 2023 23:13:20 GMT"), ("Age", "10")])
        let freshness = CacheFreshness(
            headers: fields, cacheControl: CacheControl(fields: ["max-age=60"]),
            requestTime: epoch, responseTime: epoch.addingTimeInterval(2))
        #expect(freshness.lifetime == .seconds(60))
        #expect(freshness.initialAge == .seconds(12))  // Age 10 + 2 s on the wire
        #expect(freshness.isFresh(at: epoch.addingTimeInterval(49)))
        #expect(!freshness.isFresh(at: epoch.addingTimeInterval(50)))
        #expect(freshness.staleness(at: epoch.addingTimeInterval(60)) == .seconds(10))
    }

    @Test("Expires minus Date; an invalid Expires is already expired")
    func expires() throws {
        let valid = CacheFreshness(
            headers: try headers([("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), ("Expires", "Tue, 14 Nov 2023 22:23:20 GMT")]),
            cacheControl: CacheControl(), requestTime: epoch, responseTime: epoch)
        #expect(valid.lifetime == .seconds(600))
        let invalid = CacheFreshness(
            headers: try headers([("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), ("Expires", "0")]),
            cacheControl: CacheControl(), requestTime: epoch, responseTime: epoch)
        #expect(invalid.lifetime == .zero && !invalid.isFresh(at: epoch))
    }

    @Test("Without explicit freshness, 10 % of the time since Last-Modified, capped at a day")
    func heuristic() throws {
        let recent = CacheFreshness(
            headers: try headers([("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), ("Last-Modified", "Tue, 14 Nov 2023 12:13:20 GMT")]),
            cacheControl: CacheControl(), requestTime: epoch, responseTime: epoch)
        #expect(recent.lifetime == .seconds(3_600))
        let old = CacheFreshness(
            headers: try headers([("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), ("Last-Modified", "Sun, 01 Jan 2023 00:00:00 GMT")]),
            cacheControl: CacheControl(), requestTime: epoch, responseTime: epoch)
        #expect(old.lifetime == .seconds(86_400))
        let none = CacheFreshness(headers: NetworkHeaders(), cacheControl: CacheControl(), requestTime: epoch, responseTime: epoch)
        #expect(none.lifetime == .zero)
    }

    /// A storage that hands back whatever it was given to hand back: a file anyone could have
    /// edited decodes to such values too.
    struct HostileStorage: HTTPCacheStorage {
        let entry: CachedResponse
        func variants(forKey key: String) -> [CachedResponse] { [entry] }
        func setVariants(_ variants: [CachedResponse], forKey key: String) {}
        func removeAll() {}
    }

    @Test("Stored lifetimes, ages and times at Duration's and Date's limits: clamped, no overflow",
          arguments: [-1e300, 1e300, Double.nan])  // seconds since 1970 (Foundation's Date.description traps on these)
    func hostileStoredValues(secondsSince1970: Double) async throws {
        let responseTime = Date(timeIntervalSince1970: secondsSince1970)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let extreme = Duration(secondsComponent: .max, attosecondsComponent: 0)
        for (lifetime, initialAge) in [(extreme, extreme), (.zero, extreme), (extreme, .zero), (.zero - extreme, .zero - extreme)] {
            // Lifetimes and ages are held to 0…10^12 s. The one fresh entry: the longest lifetime,
            // no initial age, stored in the future (an age below zero counts as zero). A response
            // time in the far past, or not a number, is an age of 10^12 s: stale.
            let fresh = lifetime == extreme && initialAge == .zero && secondsSince1970 == 1e300
            let freshness = CacheFreshness(lifetime: lifetime, initialAge: initialAge, responseTime: responseTime)
            #expect(freshness.isFresh(at: now) == fresh)
            // Stale by age (initial age plus time since, each within 0…10^12 s) minus lifetime:
            // never negative, never overflowed.
            #expect(fresh ? freshness.staleness(at: now) == .zero : (.zero ... CacheFreshness.longest * 2).contains(freshness.staleness(at: now)))
            let entry = CachedResponse(
                method: "GET", statusCode: 200, headerFields: [["ETag", "\"v\""]], url: try #require(URL(string: "https://host/x")),
                body: Data("cached".utf8), requestTime: responseTime, responseTime: responseTime, varyValues: [:],
                lifetime: lifetime, initialAge: initialAge)
            let stub = StubTransport()
            stub.on(.get, "/x", respond: .text("fresh"))
            let client = NetworkClient(transport: stub, cache: HTTPCache(storage: HostileStorage(entry: entry)))
            let body = try await client.requestData(for: "https://host/x").data
            // Fresh: served from the storage; stale: revalidated with its entity tag, and the
            // server's new 200 served.
            #expect(body == Data((fresh ? "cached" : "fresh").utf8))
            #expect(stub.requests.count == (fresh ? 0 : 1))
            if !fresh { #expect(stub.requests.first?.request.headers["If-None-Match"] == "\"v\"") }
        }
    }
}

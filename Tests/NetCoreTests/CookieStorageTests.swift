import Foundation
@testable import NetCore
import Testing

/// RFC 6265's storage and retrieval rules, on values: what a jar stores from a `Set-Cookie` and
/// what it sends back where.
@Suite("Cookies: RFC 6265 storage, matching and dates")
struct CookieStorageTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func storage(_ fields: [String], from url: String) -> CookieStorage {
        var storage = CookieStorage()
        storage.store(setCookieValues: fields, from: URL(string: url)!, now: now)
        return storage
    }

    func header(_ storage: CookieStorage, _ url: String) -> String? {
        storage.cookieHeader(for: URL(string: url)!, now: now)
    }

    @Test("a host-only cookie goes back to its host only; a domain cookie to the domain and its subdomains")
    func hostAndDomain() {
        let hostOnly = storage(["a=1"], from: "http://api.example.com/")
        #expect(header(hostOnly, "http://api.example.com/x") == "a=1")
        #expect(header(hostOnly, "http://sub.api.example.com/") == nil)
        #expect(header(hostOnly, "http://example.com/") == nil)
        let domain = storage(["b=2; Domain=.Example.COM"], from: "http://api.example.com/")
        #expect(header(domain, "http://example.com/") == "b=2")
        #expect(header(domain, "http://deep.api.example.com/") == "b=2")
        #expect(header(domain, "http://notexample.com/") == nil)
        #expect(header(domain, "http://example.com.evil.net/") == nil)
    }

    @Test("no cookie for another site: a Domain the host is not in, or a public suffix, is refused")
    func refusedDomains() {
        #expect(storage(["a=1; Domain=other.com"], from: "http://example.com/").cookies.isEmpty)
        #expect(storage(["a=1; Domain=com"], from: "http://example.com/").cookies.isEmpty)
        #expect(storage(["a=1; Domain=co.uk"], from: "http://shop.co.uk/").cookies.isEmpty)
        #expect(storage(["a=1; Domain=github.io"], from: "http://me.github.io/").cookies.isEmpty)
        #expect(storage(["a=1; Domain=sub.example.com"], from: "http://example.com/").cookies.isEmpty)
        // `Domain=.` names no domain: the attribute is ignored and the cookie is host-only.
        #expect(storage(["a=1; Domain=."], from: "http://example.com/").cookies.first?.hostOnly == true)
        // A public suffix that is the host itself is a host-only cookie (RFC 6265 §5.3 step 5).
        let own = storage(["a=1; Domain=localhost"], from: "http://localhost/")
        #expect(own.cookies.first?.hostOnly == true)
        // An IP address never matches another address or a "subdomain".
        let address = storage(["a=1"], from: "http://127.0.0.1:8080/")
        #expect(header(address, "http://127.0.0.2/") == nil)
        #expect(header(address, "http://127.0.0.1:9090/") == "a=1", "cookies do not isolate ports (RFC 6265 §8.5)")
        #expect(storage(["a=1; Domain=0.0.1"], from: "http://127.0.0.1/").cookies.isEmpty)
    }

    @Test("paths: the attribute, or the request's directory; matched at a slash boundary")
    func paths() {
        let given = storage(["a=1; Path=/docs"], from: "http://h/")
        #expect(header(given, "http://h/docs") == "a=1")
        #expect(header(given, "http://h/docs/x") == "a=1")
        #expect(header(given, "http://h/docsx") == nil)
        #expect(header(given, "http://h/") == nil)
        let defaulted = storage(["b=2"], from: "http://h/app/login")
        #expect(defaulted.cookies.first?.path == "/app")
        #expect(storage(["c=3; Path=relative"], from: "http://h/a/b").cookies.first?.path == "/a")
        // A trailing slash counts (URL.path drops it; the path as sent keeps it).
        #expect(storage(["d=4"], from: "http://h/a/b/").cookies.first?.path == "/a/b")
        let directory = storage(["e=5; Path=/dir/"], from: "http://h/")
        #expect(header(directory, "http://h/dir/") == "e=5")
        #expect(header(directory, "http://h/dir/x") == "e=5")
        #expect(header(directory, "http://h/dir") == nil)
        // Longer paths first, then older first.
        var both = storage(["short=1; Path=/"], from: "http://h/")
        both.store(setCookieValues: ["long=2; Path=/a/b"], from: URL(string: "http://h/")!, now: now.addingTimeInterval(1))
        #expect(header(both, "http://h/a/b/c") == "long=2; short=1")
    }

    @Test("Secure: set only over HTTPS, sent only over HTTPS; the __Secure- and __Host- prefixes")
    func secure() {
        #expect(storage(["a=1; Secure"], from: "http://h/").cookies.isEmpty)
        let secure = storage(["a=1; Secure"], from: "https://h/")
        #expect(header(secure, "https://h/") == "a=1")
        #expect(header(secure, "http://h/") == nil)
        #expect(storage(["__Secure-a=1"], from: "https://h/").cookies.isEmpty)
        #expect(storage(["__Host-a=1; Secure; Path=/; Domain=h"], from: "https://h/").cookies.isEmpty)
        #expect(storage(["__Host-a=1; Secure; Path=/"], from: "https://h/").cookies.count == 1)
        // Plain HTTP can neither replace a Secure cookie nor shadow it with a narrower path.
        var mixed = storage(["a=1; Secure"], from: "https://h/")
        mixed.store(setCookieValues: ["a=2", "a=3; Path=/deeper"], from: URL(string: "http://h/")!, now: now)
        #expect(mixed.cookies.map(\.value) == ["1"])
    }

    @Test("expiry: Max-Age wins over Expires, zero deletes, a date in the past deletes, 400 days at most")
    func expiry() {
        var jar = storage(["a=1; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT"], from: "http://h/")
        #expect(jar.cookies.first?.expires == now.addingTimeInterval(60))
        #expect(jar.cookieHeader(for: URL(string: "http://h/")!, now: now.addingTimeInterval(61)) == nil)
        jar.store(setCookieValues: ["a=1; Max-Age=0"], from: URL(string: "http://h/")!, now: now)
        #expect(jar.cookies.isEmpty)
        #expect(storage(["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT"], from: "http://h/").cookies.isEmpty)
        #expect(storage(["a=1; Max-Age=99999999999999999999"], from: "http://h/").cookies.first?.expires == now.addingTimeInterval(400 * 86_400))
        #expect(storage(["a=1; Max-Age=soon"], from: "http://h/").cookies.first?.expires == nil, "a malformed Max-Age is ignored")
    }

    @Test("a cookie with the same name, domain and path replaces the old one and keeps its creation time")
    func replacement() {
        var jar = storage(["a=1", "a=2; Path=/x"], from: "http://h/")
        jar.store(setCookieValues: ["a=3"], from: URL(string: "http://h/")!, now: now.addingTimeInterval(5))
        #expect(jar.cookies.count == 2)
        #expect(jar.cookies.first { $0.path == "/" }?.value == "3")
        #expect(jar.cookies.first { $0.path == "/" }?.created == now)
    }

    @Test("malformed fields set nothing; attributes are read case-insensitively; SameSite and HttpOnly are kept")
    func parsing() {
        #expect(storage(["novalue", "=x", " ; Path=/", "a\u{01}=1"], from: "http://h/").cookies.isEmpty)
        let cookie = storage(["  id = abc ; HTTPONLY; samesite=LAX; unknown=1"], from: "http://h/").cookies.first
        #expect(cookie?.name == "id" && cookie?.value == "abc" && cookie?.httpOnly == true && cookie?.sameSite == .lax)
        #expect(storage([String(repeating: "v", count: 5000)], from: "http://h/").cookies.isEmpty)
        #expect(storage(["big=" + String(repeating: "v", count: 5000)], from: "http://h/").cookies.isEmpty)
        // The limit is 4,096 bytes of name and value together: at it stored, one past it not.
        #expect(storage(["big=" + String(repeating: "v", count: 4093)], from: "http://h/").cookies.count == 1)
        #expect(storage(["big=" + String(repeating: "v", count: 4094)], from: "http://h/").cookies.isEmpty)
    }

    @Test("a cookie's path is at most 1 KiB: a longer Path attribute is ignored, a longer default path stores nothing")
    func pathLimit() {
        let long = "/" + String(repeating: "/", count: 80_000) + "x"  // what a redirect's Location may hold
        let fields = (0..<50).map { "c\($0)=1" }
        // Counts, not the cookies themselves: a failure would print 4 MB of paths.
        let storedFromLong = storage(fields, from: "http://h\(long)").cookies.count
        #expect(storedFromLong == 0, "80 KB default paths, 50 times over")
        // At the limit: a default path of 1,024 bytes is kept, 1,025 is not.
        let atLimit = "/" + String(repeating: "p", count: 1_023)
        let keptAtLimit = storage(["a=1"], from: "http://h\(atLimit)/x").cookies.first?.path == atLimit
        #expect(keptAtLimit)
        let storedPastLimit = storage(["a=1"], from: "http://h\(atLimit)p/x").cookies.count
        #expect(storedPastLimit == 0)
        // A long URL with a short Path attribute: stored, under the attribute's path.
        #expect(storage(["a=1; Path=/"], from: "http://h\(long)").cookies.first?.path == "/")
        // A Path attribute over the limit is ignored, as if not given: the default path applies.
        #expect(storage(["a=1; Path=/" + String(repeating: "q", count: 1_024)], from: "http://h/d/x").cookies.first?.path == "/d")
    }

    @Test("cookies loaded from a file are held to the sizes a server's are: too large or too long a path, left out")
    func loadedWithinLimits() {
        let kept = NetworkCookie(name: "ok", value: String(repeating: "v", count: 4_094), domain: "h", path: "/" + String(repeating: "p", count: 1_023))
        let tooLarge = NetworkCookie(name: "big", value: String(repeating: "v", count: 4_094), domain: "h")
        let tooLong = NetworkCookie(name: "deep", value: "1", domain: "h", path: "/" + String(repeating: "p", count: 1_024))
        let names = CookieStorage([kept, tooLarge, tooLong]).cookies.map(\.name)
        #expect(names == ["ok"])
    }

    @Test("fields joined with commas (URLSession's dictionary) split where a new cookie starts, not inside Expires")
    func joinedFields() {
        let joined = "a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/, b=2, c=x,y"
        #expect(SetCookie.fields(in: joined) == ["a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/", " b=2", " c=x,y"])
    }

    @Test("a hostile server is bounded: 50 cookies per domain and 3,000 in all, the oldest dropped")
    func limits() {
        var jar = CookieStorage()
        for index in 0..<120 {
            jar.store(setCookieValues: ["c\(index)=1"], from: URL(string: "http://h/")!, now: now.addingTimeInterval(Double(index)))
        }
        #expect(jar.cookies.count == CookieStorage.maximumPerDomain)
        #expect(Set(jar.cookies.map(\.name)) == Set((70..<120).map { "c\($0)" }))
        for host in 0..<100 {
            for index in 0..<40 {
                jar.store(setCookieValues: ["c\(index)=1"], from: URL(string: "http://h\(host).example/")!, now: now)
            }
        }
        // Past 3,000 the oldest tenth goes at once, down to 2,700. 50 + 4,000 cookies came one by
        // one: the 3,001st and then every 301st more purged (four purges), and the last 146 came
        // after the fourth, so 2,846 remain. Evicting one at a time would leave 3,000.
        let names = jar.cookies.map { "\($0.domain) \($0.name)" }
        #expect(names.count == 2_846, "\(names.count) cookies")
        #expect(names.contains("h99.example c39"), "the newest cookie stays")
        #expect(!names.contains("h0.example c0"), "the oldest host's cookies went first")
    }

    @Test("dates as servers send them (RFC 6265 §5.1.1)", arguments: [
        ("Wed, 21 Oct 2015 07:28:00 GMT", 1_445_412_480.0),
        ("Wednesday, 21-Oct-15 07:28:00 GMT", 1_445_412_480),
        ("Wed Oct 21 07:28:00 2015", 1_445_412_480),
        ("21 oct 2015 7:28:0", 1_445_412_480),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),
    ])
    func dates(text: String, seconds: Double) {
        #expect(CookieDate.parse(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test("impossible dates are refused, and the attribute ignored", arguments: [
        "", "Wed, 32 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 24:00:00 GMT", "Thu, 29 Feb 2001 00:00:00 GMT",
        "21 Foo 2015 07:28:00", "Wed, 21 Oct 1600 07:28:00 GMT", "tomorrow",
    ])
    func badDates(text: String) {
        #expect(CookieDate.parse(text) == nil)
    }

    @Test("cookies handed in whole (a jar file) are held to the limits a server's are: 50 a domain, 3,000 in all, the newest kept")
    func limitsOnCookiesHandedIn() {
        let oneDomain = (0..<60).map { NetworkCookie(name: "c\($0)", value: "v", domain: "a.example", created: now.addingTimeInterval(Double($0))) }
        let held = CookieStorage(oneDomain, now: now).cookies
        #expect(held.count == CookieStorage.maximumPerDomain)
        #expect(Set(held.map(\.name)) == Set((10..<60).map { "c\($0)" }), "the oldest ten went")
        let many = (0..<3_100).map { NetworkCookie(name: "c", value: "v", domain: "d\($0).example", created: now.addingTimeInterval(Double($0))) }
        let all = CookieStorage(many, now: now).cookies
        #expect(all.count <= CookieStorage.maximumCount)
        #expect(all.contains { $0.domain == "d3099.example" } && !all.contains { $0.domain == "d0.example" })
    }
}


import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// A client's cookie jar against Werkzeug, which sets cookies with its own `Set-Cookie` writer
/// and reports the `Cookie` header it receives.
@Suite("Cookie jar against Werkzeug")
struct CookieJarTests {
    struct Echo: Decodable { var cookie: String? }

    func echo(_ client: NetworkClient, _ base: String) async throws -> String? {
        try JSONDecoder().decode(Echo.self, from: try await client.requestData(for: "\(base)/cookies/echo").data).cookie
    }

    @Test("set by a response, sent back to the same host, never to another site")
    func sameHostOnly() async throws {
        let base = try await WerkzeugPeer.shared.baseURL()
        let jar = CookieJar()
        let client = NetworkClient(cookieJar: jar)
        _ = try await client.requestData(for: "\(base)/cookies/set?session=abc&theme=dark")
        let sent = try await echo(client, base)
        #expect(sent == "session=abc; theme=dark" || sent == "theme=dark; session=abc")
        // The same server under another name is another site.
        let otherSite = base.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        #expect(try await echo(client, otherSite) == nil)
        // A client without the jar sends nothing: URLSessionTransport's own cookies stay off.
        #expect(try await echo(NetworkClient(), base) == nil)
    }

    @Test("several cookies in one response, with Expires dates holding commas, all arrive intact")
    func severalWithDates() async throws {
        let base = try await WerkzeugPeer.shared.baseURL()
        let jar = CookieJar()
        let client = NetworkClient(cookieJar: jar)
        let query = [NetworkQuery(key: "a", value: "1"), NetworkQuery(key: "b", value: "2"),
                     NetworkQuery(key: "attributes", value: "Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/")]
        _ = try await client.requestData(for: try NetworkRequest(url: "\(base)/cookies/set", query: query))
        #expect(Set(jar.cookies.map(\.name)) == ["a", "b"])
        // 2099 is past RFC 6265bis's 400-day cap, so both expire 400 days from now: the date was
        // parsed (an unparsed one would leave session cookies, with no expiry).
        #expect(jar.cookies.allSatisfy { ($0.expires?.timeIntervalSinceNow ?? 0) > 399 * 86_400 })
        #expect(try await echo(client, base) == "a=1; b=2")
    }

    @Test("a cookie set by a redirect is stored, and sent to where it points")
    func setOnRedirect() async throws {
        let base = try await WerkzeugPeer.shared.baseURL()
        let client = NetworkClient(cookieJar: CookieJar())
        let response = try await client.requestData(for: "\(base)/cookies/redirect?to=/cookies/echo&login=yes")
        #expect(try JSONDecoder().decode(Echo.self, from: response.data).cookie == "login=yes")
    }

    @Test("Max-Age=0 deletes; Path limits where a cookie goes")
    func deletionAndPath() async throws {
        let base = try await WerkzeugPeer.shared.baseURL()
        let jar = CookieJar()
        let client = NetworkClient(cookieJar: jar)
        _ = try await client.requestData(for: "\(base)/cookies/set?scoped=1&attributes=Path%3D/cookies/echo/deeper")
        #expect(try await echo(client, base) == nil)
        _ = try await client.requestData(for: "\(base)/cookies/set?gone=1")
        #expect(try await echo(client, base) == "gone=1")
        _ = try await client.requestData(for: "\(base)/cookies/set?gone=x&attributes=Max-Age%3D0")
        #expect(try await echo(client, base) == nil)
        #expect(jar.cookies.map(\.name) == ["scoped"])
    }

    @Test("a jar in a file is private (0600), survives the client, and is read by the next one")
    func persisted() async throws {
        let base = try await WerkzeugPeer.shared.baseURL()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-jar-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            let client = NetworkClient(cookieJar: try CookieJar(contentsOf: file))
            _ = try await client.requestData(for: "\(base)/cookies/set?kept=yes&attributes=Max-Age%3D3600")
            _ = try await client.requestData(for: "\(base)/cookies/set?session=too")  // no expiry: a session cookie
        }
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let next = NetworkClient(cookieJar: try CookieJar(contentsOf: file))
        #expect(try await echo(next, base) == "kept=yes; session=too", "session cookies are saved in the file too")
    }

    @Test("a cached response brings back no cookie: the cache stores no Set-Cookie")
    func cacheStoresNoSetCookie() async throws {
        // The cache sits above the transport, so a stub stands in for the server here.
        let stub = StubTransport()
        stub.on(.get, "/page", respond: .text("page", headers: [
            .header(key: "Set-Cookie", value: "a=1"), .header(key: "Cache-Control", value: "max-age=60"),
        ]))
        let jar = CookieJar()
        let client = NetworkClient(transport: stub, cache: .memory(), cookieJar: jar)
        _ = try await client.requestData(for: "https://example.com/page")
        #expect(jar.cookies.map(\.name) == ["a"])
        try jar.removeAll()  // as a later response deleting it would
        let hit = try await client.requestData(for: "https://example.com/page")
        #expect(hit.response.cacheStatus == .cache && stub.requests.count == 1)
        #expect(hit.response.headers["Set-Cookie"] == nil)
        #expect(jar.cookies.isEmpty, "the stored response did not set the cookie again")
    }

    @Test("a damaged jar file is a typed error, not an empty jar")
    func damagedFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-jar-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("{\"cookies\": [{\"name\": 1}]}".utf8).write(to: file)
        #expect { try CookieJar(contentsOf: file) } throws: { error in
            if case CookieJarError.malformed(let path, _) = error { return path == file.path }
            return false
        }
    }

    @Test("a jar file past 64 MiB, or one that is not a regular file, is unreadable: never read whole")
    func oversizedOrSpecialFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-jar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let large = directory.appendingPathComponent("large.json")
        #expect(FileManager.default.createFile(atPath: large.path, contents: nil))
        let handle = try FileHandle(forWritingTo: large)
        try handle.truncate(atOffset: UInt64(64 << 20) + 1)  // sparse: no 64 MiB written
        try handle.close()
        let notAFile = directory.appendingPathComponent("directory.json")
        try FileManager.default.createDirectory(at: notAFile, withIntermediateDirectories: false)
        for (file, reason) in [(large, "larger than"), (notAFile, "not a regular file")] {
            #expect { try CookieJar(contentsOf: file) } throws: { error in
                guard case CookieJarError.unreadable(let path, let why) = error else { return false }
                return path == file.path && why.contains(reason)
            }
        }
    }
}

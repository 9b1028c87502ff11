import Foundation
import NetCore
import NetTransport
import Testing

/// `RedirectRule`, the one redirect step every transport's pipeline takes: which credentials a
/// target keeps, and which method and body.
@Suite("RedirectRule: credentials across origins, methods and bodies")
struct RedirectRuleTests {
    /// The three the specifications name, and API keys and tokens Net knows by name
    /// (``NetworkRedaction/sensitiveHeaderNames``), which an interceptor may sign with.
    static let credentials = ["Authorization", "Proxy-Authorization", "Cookie", "X-API-Key", "X-Auth-Token", "X-Amz-Security-Token"]

    static func redirect(_ status: Int, to location: String) -> NetworkResponseHead {
        var headers = NetworkHeaders()
        headers.appendPrevalidated(name: "Location", value: location)
        return NetworkResponseHead(statusCode: HTTPCode(status), headers: headers, url: URL(fileURLWithPath: "/"))
    }

    static func signed(_ url: String, method: NetworkHttpMethod = .get, body: NetworkRequestBody = .none) throws -> NetworkRequest {
        var request = try NetworkRequest(url: url, httpMethod: method, body: body)
        for name in credentials { try request.headers.set(name: name, value: "secret-\(name)") }
        // A name Net does not know, marked by the request (as an AuthenticationInterceptor marks its own).
        try request.headers.set(name: "PRIVATE-TOKEN", value: "secret-token")
        request.secretHeaderNames.insert("Private-Token")
        try request.headers.set(name: "X-Kept", value: "always")
        return request
    }

    @Test("another scheme, host or port drops every credential header (Authorization, Cookie, API keys); the same origin keeps them",
          arguments: [
            ("http://api.example.com/b", true),          // same origin, another path
            ("/relative", true),                          // relative: same origin
            ("http://API.Example.COM:80/b", true),        // case and the default port: same origin
            ("https://api.example.com/b", false),         // another scheme
            ("http://api.example.com:8080/b", false),     // another port
            ("http://other.example.com/b", false),        // another host
            ("http://example.com/b", false),              // a parent domain is another host
          ])
    func credentialsAcrossOrigins(location: String, sameOrigin: Bool) throws {
        let request = try Self.signed("http://api.example.com/a")
        for status in [301, 302, 303, 307, 308] {
            let next = try #require(try RedirectRule.nextRequest(after: Self.redirect(status, to: location), for: request))
            for name in Self.credentials + ["PRIVATE-TOKEN"] {
                #expect((next.headers[name] != nil) == sameOrigin, "\(status) to \(location): \(name)")
            }
            #expect(next.headers["X-Kept"] == "always")
        }
    }

    @Test("303 turns any method but HEAD into a bodiless GET; 301/302 only POST; 307/308 keep method and body")
    func methodsAndBodies() throws {
        let body = NetworkRequestBody.data(Data("payload".utf8))
        let cases: [(Int, NetworkHttpMethod, NetworkHttpMethod, Bool)] = [
            (303, .post, .get, false), (303, .put, .get, false), (303, .head, .head, false),
            (301, .post, .get, false), (302, .post, .get, false), (301, .put, .put, true), (302, .delete, .delete, true),
            (307, .post, .post, true), (308, .put, .put, true),
        ]
        for (status, method, expected, keepsBody) in cases {
            var request = try Self.signed("http://api.example.com/a", method: method, body: method == .head ? .none : body)
            if method != .head { try request.headers.set(name: "Content-Type", value: "text/plain") }
            let next = try #require(try RedirectRule.nextRequest(after: Self.redirect(status, to: "/b"), for: request))
            #expect(next.httpMethod == expected, "\(status) \(method)")
            if method != .head {
                let keptBody: Bool = if case .data(let data) = next.body { data == Data("payload".utf8) } else { false }
                #expect(keptBody == keepsBody, "\(status) \(method): body")
                #expect((next.headers["Content-Type"] != nil) == keepsBody, "\(status) \(method): Content-Type")
            }
        }
    }
}

#if OpenAPI  // the package trait: `swift test --enable-all-traits`
import Foundation
import HTTPTypes
import Net
import NetOpenAPI
import Testing

/// Net's request and response values to swift-http-types' and back.
@Suite("NetOpenAPI: conversions to and from swift-http-types")
struct HTTPTypesConversionTests {
    static let headers: [NetworkHeader] = [
        .header(key: "X-Trace", value: "1"),
        .header(key: "Accept", value: "application/json"),
        .header(key: "x-trace", value: "2"),  // a repeated name, another spelling: both kept, in order
        .header(key: "X-Latin", value: "caf\u{E9} \u{FF}"),  // obs-text: bytes 0x80–0xFF
        .header(key: "X-Empty", value: ""),
    ]

    @Test("a request survives Net → HTTPRequest → Net: method, URL with its exact query, fields in order with repeats")
    func requestRoundTrip() throws {
        let url = "https://api.example.com:8443/v1/items/a%2Fb?tag=x&tag=y&q=a%20b%2Bc&empty="
        let original = try NetworkRequest(url: url, httpMethod: .patch, headers: Self.headers)
        let converted = try HTTPRequest(original)
        #expect(converted.method == .patch)
        #expect(converted.scheme == "https" && converted.authority == "api.example.com:8443")
        #expect(converted.path == "/v1/items/a%2Fb?tag=x&tag=y&q=a%20b%2Bc&empty=")
        #expect(converted.headerFields.map(\.name.rawName) == Self.headers.map(\.name))
        #expect(converted.headerFields.map(\.value) == Self.headers.map(\.value))
        let back = try NetworkRequest(converted)
        #expect(back.url.absoluteString == url)
        #expect(back.httpMethod == .patch)
        #expect(Array(back.headers) == Array(original.headers))
    }

    @Test("a generated client's request (no authority) lands under the base URL, its path and query untouched")
    func baseURL() throws {
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items?limit=2&q=caf%C3%A9")
        for base in ["http://127.0.0.1:8080/api", "http://127.0.0.1:8080/api/"] {
            guard let baseURL = URL(string: base) else {
                Issue.record("\(base) is not a URL")
                continue
            }
            let converted = try NetworkRequest(request, baseURL: baseURL)
            #expect(converted.url.absoluteString == "http://127.0.0.1:8080/api/items?limit=2&q=caf%C3%A9")
        }
        let noBase = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items")
        #expect(throws: NetworkError.self) { try NetworkRequest(noBase) }
    }

    @Test("a base URL with a query or a fragment, and targets that are not paths (OPTIONS *, CONNECT, a path without its /), are typed errors, never another URL")
    func targetsRefused() throws {
        let items = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items?limit=2")
        for base in ["https://h.example/api?v=1", "https://h.example/api#top"] {
            let baseURL = try #require(URL(string: base))
            #expect(throws: NetworkError.self, "\(base)") { try NetworkRequest(items, baseURL: baseURL) }
        }
        let asterisk = HTTPRequest(method: .options, scheme: "https", authority: "h.example", path: "*")
        let connect = HTTPRequest(method: .connect, scheme: nil, authority: "h.example:443", path: nil)
        let bare = HTTPRequest(method: .get, scheme: "https", authority: "h.example", path: "items")
        for request in [asterisk, connect, bare] {
            let error = #expect(throws: NetworkError.self) { try NetworkRequest(request, baseURL: URL(string: "https://h.example")) }
            guard case .request(.invalidURL(_, .malformed))? = error else {
                Issue.record("expected invalidURL, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test("repeated Cookie fields, one value in swift-http-types, become one field joined with '; ' where the first was")
    func cookiesJoined() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .accept, value: "*/*"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        let headers = try NetworkHeaders(fields)
        #expect(headers.map(\.name) == ["Cookie", "Accept"])
        #expect(headers.values(for: "Cookie") == ["a=1; b=2"])
        #expect(fields[.cookie] == "a=1; b=2")  // what swift-http-types itself says the value is
    }

    @Test("a field value whose bytes are not UTF-8 is a typed error, not a rewrite to U+FFFD")
    func nonUTF8Refused() throws {
        let name = try #require(HTTPField.Name("X-Latin1"))
        let fields = HTTPFields([HTTPField(name: name, value: [0x63, 0x61, 0x66, 0xE9])])  // "café" in Latin-1
        let error = #expect(throws: NetworkError.self) { try NetworkHeaders(fields) }
        guard case .request(.invalidHeader(let field, .forbiddenValueCharacter("\u{FFFD}")))? = error else {
            Issue.record("expected invalidHeader, got \(String(describing: error))")
            return
        }
        #expect(field == "X-Latin1")
    }

    @Test("pseudo-header rules: none of Net's fields becomes a pseudo-header; the authority decides the URL")
    func pseudoHeaders() throws {
        // `:authority` is not a token: Net never holds it as a field, and HTTPFields would refuse it.
        #expect(throws: NetworkError.self) { try NetworkHeaders([.header(key: ":authority", value: "evil.example")]) }
        #expect(HTTPField.Name(":authority") == nil)
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/")
        #expect(try NetworkRequest(request).url.host() == "api.example.com")
        // A method swift-http-types accepts but is not a token for Net cannot occur: both use RFC 9110's token.
        #expect(HTTPRequest.Method("BREW") != nil && NetworkHttpMethod(rawValue: "BREW") == .other("BREW"))
    }

    @Test("a response head survives Net → HTTPResponse → Net: status and fields in order, obs-text included")
    func responseRoundTrip() throws {
        let url = try #require(URL(string: "https://api.example.com/items"))
        let head = NetworkResponseHead(statusCode: 207, headers: try NetworkHeaders(Self.headers), url: url)
        let converted = try HTTPResponse(head)
        #expect(converted.status.code == 207)
        #expect(converted.headerFields.map(\.value) == Self.headers.map(\.value))
        let back = try NetworkResponseHead(converted, url: url)
        #expect(back.statusCode == 207 && Array(back.headers) == Array(head.headers) && back.url == url)
    }

    @Test("spaces and tabs around a value are not part of it (RFC 9110 §5.5): left out, not refused")
    func surroundingWhitespace() throws {
        let headers = try NetworkHeaders([.header(key: "X-Padded", value: " \tvalue with  inner space\t ")])
        let fields = try HTTPFields(headers)
        #expect(fields[try #require(HTTPField.Name("X-Padded"))] == "value with  inner space")
        // The other way: a lenient value keeps its padding in HTTPFields; Net leaves it out.
        let padded = HTTPFields([HTTPField(name: try #require(HTTPField.Name("X-Padded")), lenientValue: Array(" \tx y\t ".utf8))])
        #expect(try NetworkHeaders(padded)["x-padded"] == "x y")
    }

    @Test("a control character that a lenient HTTPField kept is refused with a typed error naming the field and the character")
    func lenientControlCharacterRefused() throws {
        let fields = HTTPFields([HTTPField(name: try #require(HTTPField.Name("X-Bad")), lenientValue: Array("a\u{01}b".utf8))])
        let error = #expect(throws: NetworkError.self) { try NetworkHeaders(fields) }
        guard case .request(.invalidHeader(let name, let reason)) = error else {
            Issue.record("expected invalidHeader, got \(String(describing: error))")
            return
        }
        #expect(name == "X-Bad" && reason == .forbiddenValueCharacter("\u{01}"))
    }
}
#endif

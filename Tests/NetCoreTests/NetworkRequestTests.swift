import Foundation
import NetCore
import Testing

@Suite("NetworkRequest")
struct NetworkRequestTests {
    struct FilmRequestDTO: Encodable {
        let apiKey: String
        let s: String
        let page: Int
    }

    @Test("The seed's initialisers build the same request")
    func seedInitialisers() throws {
        let request = try NetworkRequest(
            url: "https://www.omdbapi.com/", httpMethod: .post,
            headers: [.header(key: "Accept", value: "application/json")],
            query: [.query(key: "page", value: "1")], httpBody: Data("hi".utf8))
        #expect(request.url.absoluteString == "https://www.omdbapi.com/?page=1")
        #expect(request.httpMethod == .post)
        #expect(request.headers["accept"] == "application/json")
        #expect(request.httpBody == Data("hi".utf8))
        #expect(request.description == "POST https://www.omdbapi.com/?page=1")

        let plain = try NetworkRequest(url: URL(string: "https://example.com")!)
        #expect(plain.httpMethod == .get && plain.body.isNone && plain.timeout == nil)
    }

    @Test("A JSON body is encoded with sorted keys and gets Content-Type: application/json")
    func jsonBody() throws {
        let request = try NetworkRequest(
            url: "https://www.omdbapi.com/", httpMethod: .post, headers: nil, query: nil,
            jsonBody: FilmRequestDTO(apiKey: "k", s: "Alien", page: 2))
        #expect(request.headers.values(for: "Content-Type") == ["application/json"])
        #expect(String(decoding: try #require(request.httpBody), as: UTF8.self) == #"{"apiKey":"k","page":2,"s":"Alien"}"#)

        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        let custom = try NetworkRequest(
            url: URL(string: "https://x.test")!, httpMethod: .put,
            headers: [.header(key: "content-type", value: "application/vnd.api+json")],
            jsonBody: FilmRequestDTO(apiKey: "k", s: "A", page: 1), encoder: encoder)
        #expect(custom.headers.values(for: "Content-Type") == ["application/vnd.api+json"])
        #expect(String(decoding: try #require(custom.httpBody), as: UTF8.self) == #"{"api_key":"k","page":1,"s":"A"}"#)
    }

    @Test("A body that cannot be encoded is a typed error naming the type")
    func encodeError() {
        struct Bad: Encodable { let value = Double.nan }
        do {
            _ = try NetworkRequest(url: "https://x.test", httpMethod: .post, jsonBody: Bad())
            Issue.record("NaN must not encode")
        } catch NetworkError.request(.encodeError(let type, let description)) {
            #expect(type.hasSuffix("Bad"))
            #expect(!description.isEmpty)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("Timeouts must be positive")
    func timeouts() throws {
        #expect(try NetworkRequest(url: "https://x.test", timeout: .milliseconds(500)).timeout == .milliseconds(500))
        #expect(throws: NetworkError.self) { try NetworkRequest(url: "https://x.test", timeout: .zero) }
        var request = try NetworkRequest(url: "https://x.test")
        request.timeout = .seconds(-1)
        #expect(throws: NetworkError.self) { try request.validate() }
    }

    @Test("validate() re-checks a request changed after it was built")
    func revalidation() throws {
        var request = try NetworkRequest(url: "https://x.test")
        request.httpMethod = .other("BAD METHOD")
        #expect(throws: NetworkError.self) { try request.validate() }
        request.httpMethod = .get
        request.url = URL(fileURLWithPath: "/etc/passwd")
        #expect(throws: NetworkError.self) { try request.validate() }
    }

    @Test("Bodies: data, file and stream, with their lengths")
    func bodies() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-body-\(UUID().uuidString)")
        try Data(repeating: 7, count: 1234).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        #expect(try NetworkRequestBody.none.contentLength() == 0)
        #expect(try NetworkRequestBody.data(Data([1, 2, 3])).contentLength() == 3)
        #expect(try NetworkRequestBody.file(file).contentLength() == 1234)
        #expect(try NetworkRequestBody.stream(NetworkBodyStream(chunks: [Data([1]), Data([2, 3])])).contentLength() == 3)

        let request = try NetworkRequest(url: "https://x.test/upload", httpMethod: .put, body: .file(file))
        #expect(request.httpBody == nil)
    }

    @Test("A missing or unreadable body file is a typed error naming the path")
    func missingFile() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/net-\(UUID().uuidString)")
        do {
            _ = try NetworkRequestBody.file(missing).contentLength()
            Issue.record("a missing file must be an error")
        } catch NetworkError.request(.unreadableBodyFile(let path, let reason)) {
            #expect(path == missing.path)
            #expect(reason.contains("No such file"))
        }
        #expect(throws: NetworkError.self) { try NetworkRequestBody.file(URL(fileURLWithPath: "/tmp")).contentLength() }
    }

    @Test("NetworkRequest, URL and String are NetworkRequestConvertible")
    func convertible() throws {
        let sources: [any NetworkRequestConvertible] = [
            try NetworkRequest(url: "https://x.test/a"), URL(string: "https://x.test/a")!, "https://x.test/a",
        ]
        for source in sources {
            let request = try source.asNetworkRequest()
            #expect(request.url.absoluteString == "https://x.test/a" && request.httpMethod == .get)
        }
        #expect(throws: NetworkError.self) { try "not a url".asNetworkRequest() }
    }

    @Test("appendingQuery adds parameters after existing ones")
    func appendingQuery() throws {
        let request = try NetworkRequest(url: "https://x.test/?a=1").appendingQuery([.query(key: "b", value: "2 3")])
        #expect(request.url.absoluteString == "https://x.test/?a=1&b=2%203")
    }

    @Test("A copy is a value: changing it leaves the original as it was, its URL check included")
    func copiesAreIndependent() throws {
        let original = try NetworkRequest(
            url: "https://x.test/a", headers: [.header(key: "Accept", value: "text/plain")], httpBody: Data("one".utf8))
        var copy = original
        copy.url = try #require(URL(string: "ftp://x.test/b"))
        copy.httpMethod = .put
        try copy.headers.add(name: "X-Extra", value: "1")
        copy.body = .data(Data("two".utf8))
        copy.timeout = .seconds(5)
        copy.cachePolicy = .reloadIgnoringCacheData
        copy.secretQueryKeys.insert("token")

        #expect(original.url.absoluteString == "https://x.test/a")
        #expect(original.httpMethod == .get)
        #expect(original.headers.count == 1 && original.headers["X-Extra"] == nil)
        #expect(original.httpBody == Data("one".utf8))
        #expect(original.timeout == nil && original.cachePolicy == .useProtocolCachePolicy && original.secretQueryKeys.isEmpty)
        #expect(throws: Never.self) { try original.validate() }

        #expect(copy.headers["X-Extra"] == "1" && copy.httpBody == Data("two".utf8) && copy.timeout == .seconds(5))
        // The copy's new URL is checked again, not taken as valid from the original's check.
        #expect(throws: NetworkError.self) { try copy.validate() }
    }
}

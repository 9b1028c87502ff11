import Foundation
import Net
import Testing

/// Docs/Requests.md's Swift samples, verbatim (``DocumentationCoverageTests`` checks), with what
/// the page says about them checked after each.
@Suite("Docs/Requests.md samples")
struct RequestsDocumentationSamples {
    struct Film: Codable { let title: String; let year: Int }
    enum AppError: Error { case unauthorised, failed(HTTPCode) }

    @Test("Forms, and query parameters from values: the bodies and URL the comments show")
    func forms() throws {
        struct SignUp: Encodable { let email: String; let name: String; let interests: [String]; let newsletter: Bool }
        struct Filter: Encodable { let q: String; let tags: [String]; let page: Int }

        let login = try NetworkRequest(url: "https://example.com/login", form: [("user", "ann"), ("password", "p&ss word")])
        // body: user=ann&password=p%26ss+word, Content-Type: application/x-www-form-urlencoded, POST

        let signUp = try NetworkRequest(
            url: "https://example.com/signup",
            formBody: SignUp(email: "ann@example.com", name: "Ann Smith", interests: ["swift", "linux"], newsletter: true))
        // body: email=ann%40example.com&name=Ann+Smith&interests%5B%5D=swift&interests%5B%5D=linux&newsletter=1

        let search = try NetworkRequest(
            url: "https://example.com/search",
            query: NetworkQuery.encoding(Filter(q: "swift nio", tags: ["server"], page: 2), encoder: URLEncodedFormEncoder(arrayEncoding: .noBrackets)))
        // https://example.com/search?q=swift%20nio&tags=server&page=2

        #expect(login.httpBody == Data("user=ann&password=p%26ss+word".utf8))
        #expect(login.headers["Content-Type"] == "application/x-www-form-urlencoded" && login.httpMethod == .post)
        #expect(signUp.httpBody == Data("email=ann%40example.com&name=Ann+Smith&interests%5B%5D=swift&interests%5B%5D=linux&newsletter=1".utf8))
        #expect(search.url.absoluteString == "https://example.com/search?q=swift%20nio&tags=server&page=2")
    }

    @Test("Building requests")
    func building() throws {
        let search = try NetworkRequest(url: "https://www.omdbapi.com/", query: [
            .query(key: "s", value: "Alien"),
            .query(key: "page", value: "2"),
        ])

        let create = try NetworkRequest(
            url: "https://api.example.com/films",
            httpMethod: .post,
            headers: [.header(key: "Accept", value: "application/json")],
            query: nil,
            httpBody: Data(#"{"title":"Alien"}"#.utf8),
            timeout: .seconds(10))

        #expect(search.url.absoluteString == "https://www.omdbapi.com/?s=Alien&page=2")
        #expect(create.httpMethod == .post && create.timeout == .seconds(10))
    }

    @Test("Query encoding")
    func query() throws {
        let request = try NetworkRequest(url: "https://api.example.com/search?lang=es", query: [
            .query(key: "q", value: "C++ & Swift"),
            .query(key: "tag", value: "a"),
            .query(key: "tag", value: "b"),
            .query(key: "empty", value: ""),
            .query(key: "flag", value: nil),
        ])
        // https://api.example.com/search?lang=es&q=C%2B%2B%20%26%20Swift&tag=a&tag=b&empty=&flag

        #expect(request.url.absoluteString == "https://api.example.com/search?lang=es&q=C%2B%2B%20%26%20Swift&tag=a&tag=b&empty=&flag")
    }

    @Test("Headers")
    func headers() throws {
        var headers = try NetworkHeaders([.header(key: "Accept", value: "application/json")])
        try headers.add(name: "accept", value: "text/plain")   // kept: repeated fields are allowed
        print(headers["ACCEPT"] ?? "")                         // application/json
        print(headers.values(for: "Accept"))                   // ["application/json", "text/plain"]
        try headers.set(name: "Accept", value: "*/*")          // replaces every case variant
        headers.remove(name: "accept")

        #expect(headers.isEmpty)
    }

    @Test("Bodies")
    func bodies() async throws {
        let url = try #require(URL(string: "https://api.example.com/films"))
        let data = Data("raw".utf8)
        let film = Film(title: "Ran", year: 1985)
        let myEncoder = JSONEncoder()
        let fileURL = URL(fileURLWithPath: #filePath)

        // In memory
        let inMemory = try NetworkRequest(url: url, httpMethod: .post, httpBody: data)

        // JSON: sorted keys by default; adds Content-Type: application/json unless you set one
        let json = try NetworkRequest(url: url, httpMethod: .post, jsonBody: film)
        let customJSON = try NetworkRequest(url: url, httpMethod: .post, jsonBody: film, encoder: myEncoder)

        // A file, read as it is sent (never loaded into memory)
        let upload = try NetworkRequest(url: url, httpMethod: .put, body: .file(fileURL))

        // A stream of chunks, known or unknown length
        let stream = NetworkBodyStream(length: 11) {
            AsyncStream { continuation in
                continuation.yield(Data("hello ".utf8))
                continuation.yield(Data("world".utf8))
                continuation.finish()
            }
        }
        let streamed = try NetworkRequest(url: url, httpMethod: .post, body: .stream(stream))

        #expect(inMemory.httpBody == data)
        #expect(json.httpBody == Data(#"{"title":"Ran","year":1985}"#.utf8) && json.headers["Content-Type"] == "application/json")
        #expect(customJSON.headers["Content-Type"] == "application/json")
        #expect(try upload.body.contentLength() == Int64(try Data(contentsOf: fileURL).count))
        #expect(try streamed.body.contentLength() == 11)
    }

    @Test("Validating and decoding")
    func validating() throws {
        let request = try NetworkRequest(url: "https://api.example.com/films/1")
        let response = NetworkDataResponse(
            data: Data(#"{"title":"Alien","year":1979}"#.utf8),
            response: NetworkResponseHead(statusCode: 200, headers: try NetworkHeaders([.header(key: "Content-Type", value: "application/json")]), url: request.url),
            originalRequest: request)

        let film = try response
            .validate()                                   // 2xx, or NetworkError …(.invalidStatusCode(response, code))
            .validateContentType(["application/json"])    // wildcards work: "application/*", "*/*"
            .jsonDecode(Film.self)

        #expect(film.year == 1979)
        try status(response)
    }

    private func status(_ response: NetworkDataResponse) throws {
        switch response.statusCode {
        case .success: break
        case HTTPCodes([401, 403]): throw AppError.unauthorised
        case .clientError, .serverError: throw AppError.failed(response.statusCode)
        default: break
        }
    }

    @Test("curl")
    func curl() throws {
        let request = try NetworkRequest(url: "https://api.example.com/me", headers: [.header(key: "Authorization", value: "Bearer t0ken")])

        print(request.curl)                                        // redacted: safe for logs
        print(request.curlCommand(.unredacted).shellCommand)       // repeats the request with its credentials
        let command = request.curlCommand(CurlOptions(followsRedirects: true))
        print(command.arguments)                                   // the exact argv, for running curl yourself

        #expect(request.curl.contains("Bearer REDACTED") && !request.curl.contains("t0ken"))
        #expect(request.curlCommand(.unredacted).shellCommand.contains("Bearer t0ken"))
        #expect(command.arguments.contains("-L"))
    }

    @Test("Secrets in logs and errors")
    func secrets() throws {
        let sessionKey = "k3y-from-login"

        let signed = try NetworkRequest(url: "https://api.example.com/export", query: [
            .query(key: "format", value: "csv"),
            .secret(key: "session_key", value: sessionKey),   // sent as given, shown as REDACTED
        ])
        print(signed)   // GET https://api.example.com/export?format=csv&session_key=REDACTED

        #expect(signed.description == "GET https://api.example.com/export?format=csv&session_key=REDACTED")
        #expect(signed.url.absoluteString.hasSuffix("session_key=k3y-from-login"))
        #expect(!signed.curl.contains(sessionKey))
    }
}

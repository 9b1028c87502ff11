import Foundation
import Net
import Testing

// Docs/Migrating-from-ALTENNetwork.md: the ALTENNetwork README's examples with the transport
// swapped in, verbatim (DocumentationCoverageTests checks). The functions that call real services
// are compiled only; the interceptors and response extensions run against a StubTransport below.

struct FilmRequestDTO: Encodable, Sendable { let apiKey: String; let s: String; let page: Int }
struct FilmDTO: Decodable, Sendable { let title: String }
struct FilmsSearchDTO<Results: Decodable & Sendable>: Decodable, Sendable { let search: Results }
struct AppErrorDTO: Decodable { let message: String }
enum ErrorApp: Error, Equatable { case networkUnauthorized, server(String) }

extension AppURLSession {
    /// The README leaves the refresh to the app: this one signs the request with a new token.
    func refreshToken(_ request: NetworkRequest) async throws -> NetworkRequest {
        var refreshed = request
        try refreshed.headers.set(name: "Authorization", value: "Bearer fresh")
        return refreshed
    }
}

actor AppURLSession: NetworkSession {
    let transport: any Transport

    init(transport: any Transport) {
        self.transport = transport
    }
}

let networkSession: any NetworkSession = AppURLSession(transport: URLSessionTransport())

func doRequest() async throws -> Data {
    let url = "https://alten.es"
    let result = try await networkSession.requestData(for: url)
    return result.data
}

extension AppURLSession {
    func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible {
        var request = originalRequest
        if !request.headers.contains(name: "Authorization") {  // a retried request keeps its new token
            try request.headers.set(name: "Authorization", value: "Token")
        }
        return request
    }

    func interceptResponse(networkSession: any NetworkSession, originalRequest: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>) async throws -> NetworkSessionInterceptionResult {
        guard retryNumber < 1 else { return .nothing }

        var statusCode: HTTPCode? = nil
        switch result {
        case .success(.data(let dataResponse)):
            statusCode = dataResponse.response.statusCode
        case .success(.download(let downloadResponse)):
            statusCode = downloadResponse.response.statusCode
        case .success(.upload(let uploadResponse)):
            statusCode = uploadResponse.response.statusCode
        case .failure(let error):
            throw error
        }
        if statusCode == 401 {
            let newRequest = try await refreshToken(originalRequest) // Implement refresh and return a new request with others authentication headers
            return .retry(newRequest)
        }
        return .nothing
    }
}

actor LoggingURLSession: NetworkSession {
    let transport: any Transport

    init(transport: any Transport) {
        self.transport = transport
    }

    func interceptRequest(networkSession: any NetworkSession, originalRequest: NetworkRequest) async throws -> any NetworkRequestConvertible {
        #if DEBUG
        print("[NetworkSession] - Start Request: \(originalRequest.curl)")
        #endif
        return originalRequest
    }

    func interceptResponse(networkSession: any NetworkSession, originalRequest: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>) async throws -> NetworkSessionInterceptionResult {
        #if DEBUG
        switch result {
        case .success(.data(let response)):
            print("[NetworkSession] - Intercept Response: \(response.data)")
        case .success(.download(let response)):
            print("[NetworkSession] - Intercept Response: File downloaded at path \(response.url)")
        case .success(.upload(let response)):
            print("[NetworkSession] - Intercept Response: \(response.data)")
        case .failure(let error):
            print("[NetworkSession] - Intercept Response: \(error)")
        }
        #endif
        return .nothing
    }
}

func getFilms(searchText: String, page: Int) async throws -> Data {
    let networkRequest = try NetworkRequest(url: "https://www.omdbapi.com/", query: [
        .query(key: "apikey", value: "xxxxxxxx"),
        .query(key: "page", value: "\(page)"),
        .query(key: "s", value: searchText)
    ])

    let result = try await networkSession.requestData(for: networkRequest)
    return result.data
}

func postFilmSearch(searchText: String, page: Int) async throws -> Data {
    let networkRequest = try NetworkRequest(
        url: "https://www.omdbapi.com/",
        httpMethod: .post,
        headers: nil,
        query: nil,
        jsonBody: FilmRequestDTO(apiKey: "xxxxxxxx", s: searchText, page: page),
        encoder: JSONEncoder())

    let result = try await networkSession.requestData(for: networkRequest)
    return result.data
}

func uploadImage(image: Data) async throws -> Data {
    let networkRequest = try NetworkRequest(
        url: "https://endpoint.com/upload/image",
        httpMethod: .post,
        headers: nil,
        query: nil,
        multipartForm: NetworkMultipartFormFileRequest(name: "image", filename: "profile.png", value: image, contentType: "application/png"))

    let result = try await networkSession.requestUpload(for: networkRequest)
    return result.data
}

func getDecodedFilms(searchText: String, page: Int) async throws -> FilmsSearchDTO<[FilmDTO]> {
    let networkRequest = try NetworkRequest(url: "https://www.omdbapi.com/", query: [
        .query(key: "apikey", value: "xxxxxxxx"),
        .query(key: "page", value: "\(page)"),
        .query(key: "s", value: searchText)
    ])

    let result = try await networkSession.requestData(for: networkRequest).validate().jsonDecode(FilmsSearchDTO<[FilmDTO]>.self)
    return result
}

extension NetworkDataResponse {
    public func logResponse() -> Self {
        if let text = String(data: data, encoding: .utf8) {
            print("[NetworkDataResponse] String: \(text)")
        } else {
            print("[NetworkDataResponse] Data recieved is not a String: \(data.count) bytes")
        }
        return self
    }
}

extension NetworkDataResponse {
    public func validateApi(correctRange range: HTTPCodes = .success) throws -> Self {
        guard range ~= response.statusCode else {
            if 400..<500 ~= response.statusCode {
                if response.statusCode == 401 {
                    throw ErrorApp.networkUnauthorized
                }
                if let object = try? JSONDecoder().decode(AppErrorDTO.self, from: data) {
                    throw ErrorApp.server(object.message)
                }
            }
            throw NetworkError.responseData(.invalidStatusCode(self, response.statusCode))
        }
        return try validate(correctRange: range)
    }
}

@MainActor
final class ConnectionMonitor {
    private var reachability: NetworkReachability?

    func checkConnection() {
        if let reachability = try? NetworkReachability(), let notifier = try? reachability.startNotifier() {
            self.reachability = reachability // retain `reachability`
            Task {
                for try await reachability in notifier {
                    print("Connection type: \(reachability.connection.rawValue)")
                }
                print("Finish Reachability")
            }
        }
    }
}

@Suite("Docs/Migrating-from-ALTENNetwork.md: the seed README's examples")
struct MigrationDocumentationTests {
    @Test("The intercepting session signs requests and retries a 401 once with a refreshed token")
    func interceptors() async throws {
        let stub = StubTransport { request in
            request.headers["Authorization"] == "Bearer fresh" ? .text("ok") : .status(.unauthorized)
        }
        let session = AppURLSession(transport: stub)
        let response = try await session.requestData(for: "https://api.example.com/me")
        #expect(response.statusCode == 200)
        #expect(stub.requests.map { $0.request.headers.values(for: "Authorization") } == [["Token"], ["Bearer fresh"]])
    }

    @Test("The logging session passes requests and results through unchanged")
    func logging() async throws {
        let stub = StubTransport()
        stub.on(.get, "/films", respond: .json(#"{"search":[{"title":"Ran"}]}"#))
        let session = LoggingURLSession(transport: stub)
        let films = try await session.requestData(for: "https://api.example.com/films").logResponse().validate().jsonDecode(FilmsSearchDTO<[FilmDTO]>.self)
        #expect(films.search.map(\.title) == ["Ran"])
        #expect(stub.requests.count == 1)
    }

    @Test("validateApi maps 401 and the server's error model, and passes 2xx")
    func validateApi() throws {
        let request = try NetworkRequest(url: "https://api.example.com/films")
        func response(_ status: HTTPCode, _ body: String = "") -> NetworkDataResponse {
            NetworkDataResponse(data: Data(body.utf8), response: NetworkResponseHead(statusCode: status, url: request.url), originalRequest: request)
        }
        #expect(throws: ErrorApp.networkUnauthorized) { try response(401).validateApi() }
        #expect(throws: ErrorApp.server("quota")) { try response(429, #"{"message":"quota"}"#).validateApi() }
        #expect(throws: NetworkError.self) { try response(500, "oops").validateApi() }
        // The seed decodes its error model for 4xx only: a 5xx carrying one is still a status error.
        #expect(throws: NetworkError.self) { try response(503, #"{"message":"down"}"#).validateApi() }
        #expect(try response(201).validateApi().statusCode == 201)
    }
}

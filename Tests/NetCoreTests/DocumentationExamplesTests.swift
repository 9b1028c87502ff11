import Foundation
import NetCore
import Testing

/// The examples of README.md and Docs/Requests.md, with the outputs those pages show.
@Suite("Documentation examples")
struct DocumentationExamplesTests {
    struct Film: Decodable, Equatable {
        let title: String
        let year: Int
    }

    @Test("README quick start prints the curl line it shows")
    func readmeQuickStart() throws {
        let request = try NetworkRequest(url: "https://www.omdbapi.com/", query: [
            .query(key: "apikey", value: "xxxxxxxx"),
            .query(key: "s", value: "Star Wars: Episode IV"),
        ])
        #expect(request.curl == "curl 'https://www.omdbapi.com/?apikey=REDACTED&s=Star%20Wars:%20Episode%20IV'")
        do {
            _ = try NetworkRequest(url: "api.example.com/items")
            Issue.record("a relative URL must fail")
        } catch let error as NetworkError {
            #expect(error.description.hasPrefix("Invalid request: invalid URL \"api.example.com/items\": it is relative; write it in full"))
        }
    }

    @Test("Requests.md: header operations behave as shown")
    func headerExample() throws {
        var headers = try NetworkHeaders([.header(key: "Accept", value: "application/json")])
        try headers.add(name: "accept", value: "text/plain")
        #expect(headers["ACCEPT"] == "application/json")
        #expect(headers.values(for: "Accept") == ["application/json", "text/plain"])
        try headers.set(name: "Accept", value: "*/*")
        #expect(headers.values(for: "accept") == ["*/*"])
        headers.remove(name: "accept")
        #expect(headers.isEmpty)
    }

    @Test("Requests.md: validation chain, error model and status switch")
    func responseExample() throws {
        enum AppError: Error { case unauthorised, failed(HTTPCode) }
        let request = try NetworkRequest(url: "https://api.example.com/films/1")
        let response = NetworkDataResponse(
            data: Data(#"{"title":"Alien","year":1979}"#.utf8),
            response: NetworkResponseHead(statusCode: 200, headers: try NetworkHeaders([.header(key: "Content-Type", value: "application/json")]), url: request.url),
            originalRequest: request)
        let film = try response.validate().validateContentType(["application/json"]).jsonDecode(Film.self)
        #expect(film == Film(title: "Alien", year: 1979))

        func check(_ statusCode: HTTPCode) throws {
            switch statusCode {
            case .success: break
            case HTTPCodes([401, 403]): throw AppError.unauthorised
            case .clientError, .serverError: throw AppError.failed(statusCode)
            default: break
            }
        }
        #expect(throws: Never.self) { try check(204) }
        #expect(throws: AppError.self) { try check(403) }
        #expect(throws: AppError.self) { try check(502) }
    }

    @Test("Requests.md: the decode failure reads as shown")
    func decodeFailureExample() throws {
        struct Page: Decodable { let results: [Film] }
        let body = #"{"results":[{"title":"Alien","year":1979},{"title":"Up","year":"2009"}]}"#
        let request = try NetworkRequest(url: "https://api.example.com/films")
        let response = NetworkDataResponse(data: Data(body.utf8), response: NetworkResponseHead(statusCode: 200, url: request.url), originalRequest: request)
        do {
            _ = try response.jsonDecode(Page.self)
        } catch NetworkError.responseData(.decodeError(_, let failure)) {
            #expect(failure.description.contains("Page at results[1].year: expected Int"))
            #expect(failure.description.contains("Body (72 bytes): \"{\\\"results\\\":"))
        }
    }

    @Test("Requests.md: endpoint types conform to NetworkRequestConvertible")
    func endpointExample() throws {
        struct FilmEndpoint: NetworkRequestConvertible {
            let id: Int
            func asNetworkRequest() throws -> NetworkRequest {
                try NetworkRequest(url: "https://api.example.com/films/\(id)")
            }
        }
        #expect(try FilmEndpoint(id: 7).asNetworkRequest().url.absoluteString == "https://api.example.com/films/7")
    }
}

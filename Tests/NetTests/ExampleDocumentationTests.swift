import Foundation
import Net
import Testing

// Docs/Example-Paginated-API.md, verbatim (DocumentationCoverageTests checks): the models, the
// client, its use (compiled only: it calls rickandmortyapi.com) and its tests, which run here.

/// One page of any list: the API wraps every list the same way.
struct Page<Item: Decodable & Sendable>: Decodable, Sendable {
    struct Info: Decodable, Sendable {
        let count: Int
        let pages: Int
        let next: URL?
        let prev: URL?
    }
    let info: Info
    let results: [Item]
}

/// `Character` would hide Swift's own type in your module.
struct CharacterDTO: Decodable, Sendable, Identifiable {
    let id: Int
    let name: String
    let status: String
    let species: String
    let image: URL
}

/// What the API says when it has nothing: `{"error": "There is nothing here"}`.
struct APIError: Decodable, Error, Equatable {
    let error: String
}

struct APIClient: Sendable {
    let baseURL: URL
    private let client: NetworkClient

    /// Production code passes no transport; tests pass a `StubTransport`.
    /// Throws `NetworkError` for a URL that is not absolute http(s).
    init(baseURL: String, transport: any Transport = URLSessionTransport()) throws {
        self.baseURL = try NetworkRequest(url: baseURL).url
        // Retries 5xx and transient failures of these GETs; honours Retry-After.
        self.client = NetworkClient(transport: transport, interceptors: [RetryPolicy()])
    }

    /// One page of `resource` ("character", "location", "episode"), filtered by `filters`.
    func page<Item: Decodable & Sendable>(
        of resource: String, as type: Item.Type, number: Int = 1, filters: [NetworkQuery] = []
    ) async throws -> Page<Item> {
        let request = try NetworkRequest(
            url: baseURL.appendingPathComponent(resource),
            query: [.query(key: "page", value: "\(number)")] + filters)
        return try await fetch(request)
    }

    /// Every item of `resource`, page after page, following `info.next` until it is null.
    func all<Item: Decodable & Sendable>(of resource: String, as type: Item.Type, filters: [NetworkQuery] = []) async throws -> [Item] {
        var page = try await self.page(of: resource, as: type, filters: filters)
        var items = page.results
        while let next = page.info.next {
            try Task.checkCancellation()
            page = try await fetch(NetworkRequest(url: next))
            items += page.results
        }
        return items
    }

    /// Sends `request` and decodes the page; a 4xx with the API's error body throws `APIError`.
    private func fetch<Item>(_ request: NetworkRequest) async throws -> Page<Item> {
        try await client.requestData(for: request)
            .validate(errorModel: APIError.self)
            .jsonDecode(Page<Item>.self)
    }
}

/// Compiled only: it calls the real API.
func usingTheAPIClient() async throws {
    let api = try APIClient(baseURL: "https://rickandmortyapi.com/api")
    let firstPage = try await api.page(of: "character", as: CharacterDTO.self)
    print(firstPage.info.count, firstPage.results.map(\.name))
    let ricks = try await api.all(of: "character", as: CharacterDTO.self, filters: [.query(key: "name", value: "rick")])
    print(ricks.count)
}

@Suite struct APIClientTests {
    let stub = StubTransport()
    let api: APIClient

    init() throws {
        api = try APIClient(baseURL: "https://rickandmortyapi.com/api", transport: stub)
        let page1 = try StubResponse.fixture(try fixture("characters-page-1"), contentType: "application/json")
        let page2 = try StubResponse.fixture(try fixture("characters-page-2"), contentType: "application/json")
        stub.on(.get, "/api/character") { request in
            request.url.query?.contains("page=2") == true ? page2 : page1
        }
        stub.on(.get, "/api/location", respond: try .fixture(try fixture("not-found"), status: .notFound, contentType: "application/json"))
    }

    @Test func decodesAPage() async throws {
        let page = try await api.page(of: "character", as: CharacterDTO.self)
        #expect(page.info.pages == 2 && page.results.map(\.name) == ["Rick Sanchez", "Morty Smith"])
        #expect(stub.requests.first?.request.url.absoluteString == "https://rickandmortyapi.com/api/character?page=1")
    }

    @Test func followsNextUntilTheLastPage() async throws {
        let all = try await api.all(of: "character", as: CharacterDTO.self, filters: [.query(key: "name", value: "s")])
        #expect(all.map(\.id) == [1, 2, 3])
        #expect(stub.requests.map(\.request.url.query) == ["page=1&name=s", "page=2"])
    }

    @Test func theAPIsErrorIsTyped() async throws {
        await #expect(throws: APIError(error: "There is nothing here")) {
            _ = try await api.page(of: "location", as: CharacterDTO.self)
        }
    }
}

func fixture(_ name: String) throws -> URL {
    try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
}

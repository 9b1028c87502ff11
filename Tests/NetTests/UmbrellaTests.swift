import Net
import Testing

@Suite("Umbrella module")
struct UmbrellaTests {
    @Test("import Net exposes NetCore's types")
    func reExportsNetCore() throws {
        let request = try NetworkRequest(url: "https://example.com/items", query: [.query(key: "page", value: "2")])
        #expect(request.url.absoluteString == "https://example.com/items?page=2")
        #expect(HTTPCodes.success ~= HTTPCode(204))
    }
}

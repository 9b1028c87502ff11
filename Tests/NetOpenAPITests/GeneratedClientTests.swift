#if OpenAPI && AsyncHTTPClient  // the package traits: `swift test --enable-all-traits`
import Foundation
import HTTPTypes
import Net
import NetOpenAPI
import OpenAPIRuntime
import Testing

/// Every operation of Tests/NetOpenAPITests/OpenAPI/openapi.yaml, through the generated client,
/// against the generated server on Hummingbird: on NetOpenAPITransport over both of Net's
/// transports, and on swift-openapi-urlsession and swift-openapi-async-http-client, which must
/// pass the same checks (so the benchmarks compare clients that do the same work).
@Suite("A generated OpenAPI client: every operation against the generated server", .serialized)
struct GeneratedClientTests {
    @Test("JSON GET with query parameters: the query arrives exactly as the generated code made it", arguments: ClientUnderTest.allCases)
    func listItems(_ under: ClientUnderTest) async throws {
        let paths = GeneratedPaths()
        let client = try await under.client(middlewares: [paths])
        let output = try await client.listItems(query: .init(limit: 2, tag: ["kitchen", "home"], q: "a b&c+d/é \(under.rawValue)"))
        let list = try output.ok.body.json
        #expect(list.items.map(\.id) == [1, 2])
        let generated = try #require(paths.all.first)
        #expect("/items?" + list.query == generated, "the server saw another query than the generated code made")
        #expect(list.query.hasPrefix("limit=2&tag=kitchen&tag=home&q="))
    }

    @Test("JSON POST: the body is encoded, sent, and the 201 decoded", arguments: ClientUnderTest.allCases)
    func createItem(_ under: ClientUnderTest) async throws {
        let created = try await under.client().createItem(body: .json(.init(name: "cup", tags: ["kitchen"])))
        #expect(try created.created.body.json == .init(id: 4, name: "cup", tags: ["kitchen"]))
    }

    /// 256 KiB: the runtime's multipart parser, in a debug build, holds a thread of Swift's
    /// two-thread pool for about a quarter of a second per MiB, which the suite's timing checks
    /// beside it feel; several chunks are what matters here, not the size.
    @Test("multipart upload: a text part and a 256 KiB file part streamed in chunks, arriving byte for byte", arguments: ClientUnderTest.allCases)
    func uploadFile(_ under: ClientUnderTest) async throws {
        let size = 256 << 10
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var expected = FNV1a()
        expected.update(bytes)
        let chunks = stride(from: 0, to: size, by: 40_000).map { bytes[$0..<Swift.min($0 + 40_000, size)] }
        let file = HTTPBody(AsyncStream { continuation in
            for chunk in chunks { continuation.yield(ArraySlice(chunk)) }
            continuation.finish()
        }, length: .known(Int64(size)), iterationBehavior: .single)
        let parts: MultipartBody<Operations.UploadFile.Input.Body.MultipartFormPayload> = [
            .description(.init(payload: .init(body: HTTPBody("holiday photos")))),
            .file(.init(payload: .init(body: file), filename: "photos.bin")),
        ]
        let result = try await under.client().uploadFile(body: .multipartForm(parts)).ok.body.json
        #expect(result == .init(description: "holiday photos", bytes: Int64(size), checksum: expected.hex))
    }

    @Test("application/octet-stream download: the bytes as the server made them (in four chunks), with their length", arguments: ClientUnderTest.allCases)
    func download(_ under: ClientUnderTest) async throws {
        let size: Int64 = 200_000
        let body = try await under.client().download(path: .init(size: size)).ok.body.binary
        #expect(body.length == .known(size))
        let data = try await Data(collecting: body, upTo: 1 << 20)
        #expect(data == Data((0..<Int(size)).map { UInt8($0 % 251) }))
    }

    @Test("JSON Lines: the first event arrives while the server still holds the rest", arguments: ClientUnderTest.allCases)
    func streamEvents(_ under: ClientUnderTest) async throws {
        let key = "events-\(UUID().uuidString)"
        let state = OpenAPITestServer.state
        // swift-openapi-urlsession reads the whole body on Linux: released at once, or it would wait forever.
        if !under.streamsResponses { state.release(key) }
        let body = try await under.client().streamEvents(query: .init(key: key, count: 3)).ok.body.applicationJsonl
        var events = body.asDecodedJSONLines(of: Components.Schemas.Event.self).makeAsyncIterator()
        let first = try await events.next()
        #expect(first == .init(sequence: 0, text: "event 0"))
        if under.streamsResponses {
            #expect(state.isHolding(key), "the first event came only after the server let the rest go")
            state.release(key)
        }
        var rest: [Components.Schemas.Event] = []
        while let event = try await events.next() { rest.append(event) }
        #expect(rest.map(\.sequence) == [1, 2])
    }

    @Test("an Authorization header and the 401 path: a valid token is accepted, a wrong one is the documented 401", arguments: ClientUnderTest.allCases)
    func getMe(_ under: ClientUnderTest) async throws {
        let token = "token-\(UUID().uuidString)"
        OpenAPITestServer.state.allow(token)
        let accepted = try await under.client(middlewares: [AddHeader(name: .authorization, value: "Bearer \(token)")]).getMe()
        #expect(try accepted.ok.body.json == .init(user: "ann", authorization: "Bearer \(token)"))
        let refused = try await under.client(middlewares: [AddHeader(name: .authorization, value: "Bearer wrong")]).getMe()
        #expect(try refused.unauthorized.headers.wwwAuthenticate == "Bearer")
    }

    @Test("a refused connection: NetworkError is the ClientError's underlying error", arguments: ClientUnderTest.net)
    func refusedConnection(_ under: ClientUnderTest) async throws {
        let client = Client(serverURL: try #require(URL(string: "http://127.0.0.1:9/api")), transport: under.transport())
        do {
            _ = try await client.listItems()
            Issue.record("a request to a closed port succeeded")
        } catch let error as ClientError {
            guard case .transport(.cannotConnect)? = error.underlyingError as? NetworkError else {
                Issue.record("underlying error: \(error.underlyingError)")
                return
            }
            #expect(error.operationID == "listItems")
        }
    }
}
#endif

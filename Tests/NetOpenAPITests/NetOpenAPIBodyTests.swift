#if OpenAPI && AsyncHTTPClient  // the package traits: `swift test --enable-all-traits`
import Foundation
import HTTPTypes
import Hummingbird
import Net
import NetOpenAPI
import NIOCore
import OpenAPIRuntime
import Synchronization
import Testing

/// How NetOpenAPITransport frames what it sends and describes what it receives, seen by a server
/// that reports the request's framing headers and the bytes it read.
@Suite("NetOpenAPITransport: request framing, response length, single-use bodies")
struct NetOpenAPIBodyTests {
    static let chunks: [ArraySlice<UInt8>] = [ArraySlice(repeating: 0x61, count: 3_000), ArraySlice(repeating: 0x62, count: 5_000), [0x63]]
    static var total: Int { chunks.reduce(0) { $0 + $1.count } }

    @Test("a body of known length is sent with Content-Length and no chunking", arguments: ClientUnderTest.net)
    func knownLength(_ under: ClientUnderTest) async throws {
        let body = HTTPBody(Self.stream(), length: .known(Int64(Self.total)), iterationBehavior: .single)
        let seen = try await Self.put(body, key: "known-\(UUID().uuidString)", on: under)
        #expect(seen == "\(Self.total) - \(Self.total)")
    }

    @Test("framing headers a middleware left behind (a stale Content-Length, a Transfer-Encoding) give way to the body's own length",
          arguments: ClientUnderTest.net)
    func staleFramingHeaders(_ under: ClientUnderTest) async throws {
        let body = HTTPBody(Self.stream(), length: .known(Int64(Self.total)), iterationBehavior: .single)
        var fields = HTTPFields()
        fields[.contentLength] = "3"
        fields[.transferEncoding] = "chunked"
        let seen = try await Self.put(body, key: "stale-\(UUID().uuidString)", through: NetworkClient(transport: under.netTransport), fields: fields)
        #expect(seen == "\(Self.total) - \(Self.total)")
    }

    /// URLSessionTransport collects a streamed body of up to 1 MiB (this one) in memory, and
    /// spools a larger one to a file, and sends either with its length, because
    /// FoundationNetworking sends a body stream chunked *and* with a length (Docs/Linux-notes.md).
    @Test("a body of unknown length is sent chunked on AsyncHTTPClient, collected and sent with its length on URLSession",
          arguments: ClientUnderTest.net)
    func unknownLength(_ under: ClientUnderTest) async throws {
        let body = HTTPBody(Self.stream(), length: .unknown, iterationBehavior: .single)
        let seen = try await Self.put(body, key: "unknown-\(UUID().uuidString)", on: under)
        let expected = under == .netAsyncHTTPClient ? "- chunked \(Self.total)" : "\(Self.total) - \(Self.total)"
        #expect(seen == expected)
    }

    @Test("a single-use body is not sent again on a retry: the call fails with the runtime's error, and no second body arrives",
          arguments: ClientUnderTest.net)
    func singleUseBodyIsNotResent(_ under: ClientUnderTest) async throws {
        let key = "retry-\(UUID().uuidString)"  // the server answers this key's first request with a 503
        let body = HTTPBody(Self.stream(), length: .known(Int64(Self.total)), iterationBehavior: .single)
        let session = NetworkClient(transport: under.netTransport, interceptors: [RetryPolicy(maximumRetries: 2, baseDelay: .zero, jitter: 0)])
        let error = await #expect(throws: (any Error).self) {
            _ = try await Self.put(body, key: key, through: session)
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("second iterator"))
        // The first attempt's body arrived whole; no other body (empty or partial) was read to its end.
        #expect(BodyFramingServer.state.completeBodies(key) == [Self.total])
    }

    @Test("a single-use body is not sent again on a 307 or 308: the call fails with the runtime's error, and no second body arrives",
          arguments: ClientUnderTest.net, [307, 308])
    func singleUseBodyIsNotRedirected(_ under: ClientUnderTest, status: Int) async throws {
        let key = "redirect\(status)-\(UUID().uuidString)"
        let body = HTTPBody(Self.stream(), length: .known(Int64(Self.total)), iterationBehavior: .single)
        let error = await #expect(throws: (any Error).self) { _ = try await Self.put(body, key: key, on: under) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("second iterator"))
        #expect(BodyFramingServer.state.completeBodies(key) == [Self.total])
        #expect(BodyFramingServer.state.completeBodies("moved-\(key)") == [])
    }

    @Test("a multiple-use body is sent again on a retry, whole", arguments: ClientUnderTest.net)
    func multipleUseBodyIsResent(_ under: ClientUnderTest) async throws {
        let key = "retry-\(UUID().uuidString)"
        let body = HTTPBody(Array(Self.chunks.joined()))  // `.multiple`, as a generated JSON body
        let session = NetworkClient(transport: under.netTransport, interceptors: [RetryPolicy(maximumRetries: 2, baseDelay: .zero, jitter: 0)])
        let seen = try await Self.put(body, key: key, through: session)
        #expect(seen == "\(Self.total) - \(Self.total)")
        #expect(BodyFramingServer.state.completeBodies(key) == [Self.total, Self.total])
    }

    @Test("a gzip response: the body is decoded, and its length is unknown (Content-Length counts the encoded bytes)",
          arguments: ClientUnderTest.net)
    func decodedBodyHasNoLength(_ under: ClientUnderTest) async throws {
        let transport = NetOpenAPITransport(session: NetworkClient(transport: under.netTransport))
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/gzip",
                                  headerFields: [.acceptEncoding: "gzip"])
        let (response, body) = try await transport.send(request, body: nil, baseURL: try await BodyFramingServer.baseURL(), operationID: "gzip")
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentLength] == "\(BodyFramingServer.gzipped.count)")
        let received = try #require(body)
        #expect(received.length == .unknown)
        let text = try await String(collecting: received, upTo: 1 << 20)
        #expect(text == BodyFramingServer.plain)
    }

    /// The test's chunks, produced one at a time.
    static func stream() -> AsyncStream<ArraySlice<UInt8>> {
        AsyncStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
    }

    /// PUTs `body` through Net's transport under test (no interceptors) and returns what the
    /// server saw: `Content-Length Transfer-Encoding bytes`, `-` for an absent header.
    static func put(_ body: HTTPBody, key: String, on under: ClientUnderTest) async throws -> String {
        try await put(body, key: key, through: NetworkClient(transport: under.netTransport))
    }

    static func put(_ body: HTTPBody, key: String, through session: NetworkClient, fields: HTTPFields = [:]) async throws -> String {
        let transport = NetOpenAPITransport(session: session)
        let request = HTTPRequest(method: .put, scheme: nil, authority: nil, path: "/framing/\(key)", headerFields: fields)
        let (response, answer) = try await transport.send(request, body: body, baseURL: try await BodyFramingServer.baseURL(), operationID: "put")
        guard response.status == .ok, let answer else { throw ServerTestError(description: "status \(response.status)") }
        return try await String(collecting: answer, upTo: 1 << 10)
    }
}

/// The server of ``NetOpenAPIBodyTests``: `PUT /framing/KEY` answers with the request's framing
/// headers and the number of bytes it read (a key starting with `retry` gets a 503 the first
/// time, one starting with `redirect307` or `redirect308` that redirect to `/framing/moved-KEY`);
/// `GET /gzip` answers with a gzip-encoded text.
enum BodyFramingServer {
    static let state = FramingState()
    static let plain = String(repeating: "hello, compressed world! ", count: 40)
    /// `plain`, gzip-compressed (by Python's `gzip.compress(…, mtime=0)`).
    static let gzipped = [UInt8](Data(base64Encoded: "H4sIAAAAAAACA8tIzcnJ11FIzs8tKEotLk5NUSjPL8pJUVTIGJUYlRiVGC4SAD4G/B7oAwAA") ?? Data())

    private static let shared = SharedLoopbackServer {
        let router = Router()
        router.put("/framing/:key") { request, context -> Response in
            let key = context.parameters.get("key") ?? ""
            let length = request.headers[.contentLength] ?? "-"
            let encoding = request.headers[.transferEncoding] ?? "-"
            var count = 0
            for try await chunk in request.body { count += chunk.readableBytes }
            let arrival = state.recordCompleteBody(key, bytes: count)
            if key.hasPrefix("retry"), arrival == 1 { return Response(status: .serviceUnavailable) }
            if key.hasPrefix("redirect"), arrival == 1 {  // to the same URL with another key, once
                return Response(status: HTTPResponse.Status(code: Int(key.dropFirst("redirect".count).prefix(3)) ?? 307),
                                headers: [.location: "/framing/moved-\(key)"])
            }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "\(length) \(encoding) \(count)")))
        }
        router.get("/gzip") { _, _ -> Response in
            Response(status: .ok, headers: [.contentEncoding: "gzip", .contentType: "text/plain"],
                     body: .init(byteBuffer: ByteBuffer(bytes: gzipped)))
        }
        return router
    }

    static func baseURL() async throws -> URL { try await shared.baseURL() }
}

/// The bodies ``BodyFramingServer`` read to their end, per key.
final class FramingState: Sendable {
    private let bodies = Mutex<[String: [Int]]>([:])

    /// Records a body read whole; returns how many this key has had, this one included.
    func recordCompleteBody(_ key: String, bytes: Int) -> Int {
        bodies.withLock { bodies in
            bodies[key, default: []].append(bytes)
            return bodies[key, default: []].count
        }
    }

    func completeBodies(_ key: String) -> [Int] { bodies.withLock { $0[key] ?? [] } }
}
#endif

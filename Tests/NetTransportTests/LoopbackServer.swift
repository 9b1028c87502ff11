import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import NetTestSupport
import Synchronization

/// The routes of a real HTTP/1.1 server on 127.0.0.1 (Hummingbird), started once per test process.
///
/// Routes:
/// - `/echo` (any method): JSON ``EchoReply`` describing what arrived, body checksum included;
/// - `/bytes/:n`: `n` bytes of ``LoopbackServer/pattern(count:)`` with a Content-Length;
/// - `/status/:code`: that status; `?www-authenticate=` adds the header;
/// - `/redirect/:code?to=PATH`: that status with a Location;
/// - `/delay/:ms`: answers "done" after `ms` milliseconds (`?key=K`: counts the arrival in
///   ``arrivals(_:)`` under K first);
/// - `/stall-body/:ms`: sends the head and 10 bytes, then waits `ms` before the last 10;
/// - `/truncated`: declares 1,000 bytes, sends 100 and closes the connection;
/// - `/gzip`: ``LoopbackServer/gzipText`` compressed, with `Content-Encoding: gzip`;
/// - `/headers`: a repeated field and a non-ASCII value;
/// - `/query`: the query as the server decodes it, as JSON pairs;
/// - `/auth/:id`: 200 for `Authorization: Bearer fresh`, else 401; every arrival is recorded in
///   ``authLog``.
/// - `/held/:key`: counts its arrivals in ``arrivals(_:)``, waits until the test puts the key in
///   ``heldReleased``, then answers `body <key> <arrival>` with `Cache-Control: max-age=600`.
enum LoopbackServer {
    /// Arrivals at `/held/:key`, and at `/delay/:ms` with a `key`, per key.
    private static let arrivalsByKey = Mutex<[String: Int]>([:])

    /// How many requests under `key` have arrived at `/held` or `/delay` so far.
    static func arrivals(_ key: String) -> Int { arrivalsByKey.withLock { $0[key] ?? 0 } }
    /// Keys whose `/held` requests may be answered.
    static let heldReleased = Mutex<Set<String>>([])
    /// Every `/auth/:id` arrival: the id and the `Authorization` it carried.
    static let authLog = Mutex<[(id: String, authorization: String)]>([])

    /// The `/auth/:id` arrivals whose id starts with `prefix` (one test's requests), in order.
    static func authArrivals(prefix: String) -> [(id: String, authorization: String)] {
        authLog.withLock { $0 }.filter { $0.id.hasPrefix(prefix) }
    }
    static let shared = SharedLoopbackServer { try makeRouter() }
    static let gzipText = String(repeating: "Net decompresses gzip bodies. ", count: 200)

    /// Deterministic bytes for bodies: position modulo 251.
    static func pattern(count: Int) -> Data { TestPattern.bytes(count: count) }

    /// The FNV-1a hash `/echo` reports for a body.
    static func checksum(_ data: Data) -> UInt64 { FNV1a.hash(data) }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        while index < text.utf8.endIndex {
            let byte = text.utf8[index]
            let next = text.utf8.index(after: index)
            if byte == UInt8(ascii: "%"), text.utf8.distance(from: next, to: text.utf8.endIndex) >= 2,
               let value = UInt8(String(decoding: text.utf8[next..<text.utf8.index(next, offsetBy: 2)], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index = text.utf8.index(next, offsetBy: 2)
            } else {
                bytes.append(byte)
                index = next
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func makeRouter() throws -> Router<BasicRequestContext> {
        let gzipped = try runProcess("/bin/gzip", ["-c", "-n"], input: Data(gzipText.utf8))
        let router = Router()
        router.on("/echo", method: .get) { request, _ in try await echo(request) }
        for method in [HTTPRequest.Method.post, .put, .patch, .delete, .head, .options] {
            router.on("/echo", method: method) { request, _ in try await echo(request) }
        }
        router.on("/echo", method: HTTPRequest.Method("PROPFIND")!) { request, _ in try await echo(request) }
        // The query as the server decodes it, as JSON pairs in order: Hummingbird splits the query
        // and decodes values; it leaves keys encoded, so `percentDecoded` (written here, not Net's)
        // decodes those. (Foundation's removingPercentEncoding drops a leading U+FEFF.)
        router.get("/query") { request, _ in
            let pairs = request.uri.queryParameters.map { [percentDecoded($0.key), String($0.value)] }
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(pairs))))
        }
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/held/:key", method: method) { _, context in
                let key = try context.parameters.require("key")
                let arrival = arrivalsByKey.withLock { arrivals in
                    arrivals[key, default: 0] += 1
                    return arrivals[key] ?? 0
                }
                while !heldReleased.withLock({ $0.contains(key) }) { try await Task.sleep(for: .milliseconds(2)) }
                return Response(status: .ok, headers: [.cacheControl: "max-age=600"], body: ResponseBody(byteBuffer: ByteBuffer(string: "body \(key) \(arrival)")))
            }
        }
        router.get("/auth/:id") { request, context in
            let id = try context.parameters.require("id")
            let authorization = request.headers[.authorization] ?? "(none)"
            authLog.withLock { $0.append((id, authorization)) }
            return Response(status: authorization == "Bearer fresh" ? .ok : .unauthorized)
        }
        router.get("/bytes/:n") { _, context in
            let count = try context.parameters.require("n", as: Int.self)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: pattern(count: count))))
        }
        router.on("/status/:code", method: .get) { request, context in try status(request, context) }
        router.on("/status/:code", method: .post) { request, context in try status(request, context) }
        for method in [HTTPRequest.Method.get, .post, .put, .head] {
            router.on("/redirect/:code", method: method) { request, context in
                let code = try context.parameters.require("code", as: Int.self)
                let target = request.uri.queryParameters.get("to") ?? "/echo"
                return Response(status: HTTPResponse.Status(code: code), headers: [.location: target])
            }
        }
        router.get("/delay/:ms") { request, context in
            let milliseconds = try context.parameters.require("ms", as: Int.self)
            if let key = request.uri.queryParameters.get("key") { arrivalsByKey.withLock { $0[String(key), default: 0] += 1 } }
            try await Task.sleep(for: .milliseconds(milliseconds))
            return "done"
        }
        router.get("/stall-body/:ms") { _, context in
            let milliseconds = try context.parameters.require("ms", as: Int.self)
            return Response(status: .ok, headers: [.contentLength: "20"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(bytes: pattern(count: 10)))
                try await Task.sleep(for: .milliseconds(milliseconds))
                try await writer.write(ByteBuffer(bytes: pattern(count: 10)))
                try await writer.finish(nil)
            })
        }
        router.get("/truncated") { _, _ in
            Response(status: .ok, headers: [.contentLength: "1000"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(bytes: pattern(count: 100)))
                throw HTTPError(.internalServerError)
            })
        }
        router.get("/gzip") { _, _ in
            Response(status: .ok, headers: [.contentEncoding: "gzip", .contentType: "text/plain"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: gzipped)))
        }
        router.get("/headers") { _, _ in
            var headers = HTTPFields()
            headers.append(HTTPField(name: HTTPField.Name("X-Multi")!, value: "first"))
            headers.append(HTTPField(name: HTTPField.Name("X-Multi")!, value: "second"))
            headers.append(HTTPField(name: HTTPField.Name("X-Unicode")!, value: "café"))
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok")))
        }
        return router
    }

    private static func status(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let code = try context.parameters.require("code", as: Int.self)
        var headers = HTTPFields()
        if let challenge = request.uri.queryParameters.get("www-authenticate") {
            headers[.wwwAuthenticate] = challenge
        }
        if let retryAfter = request.uri.queryParameters.get("retry-after") {
            headers[.retryAfter] = retryAfter
        }
        return Response(status: HTTPResponse.Status(code: code), headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: "status \(code)")))
    }

    private static func echo(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 512 * 1024 * 1024)
        let bytes = body.readableBytesView
        let reply = EchoReply(
            method: request.method.rawValue,
            uri: request.uri.description,
            headers: request.headers.map { [$0.name.rawName, $0.value] },
            bodyLength: bytes.count,
            bodyChecksum: body.withUnsafeReadableBytes { bytes in
                var hasher = FNV1a()
                hasher.add(bytes)
                return hasher.value
            },
            bodyPrefix: String(decoding: bytes.prefix(256), as: UTF8.self))
        let json = try JSONEncoder().encode(reply)
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
    }
}

/// What `/echo` saw.
struct EchoReply: Codable, Sendable {
    var method: String
    var uri: String
    var headers: [[String]]
    var bodyLength: Int
    var bodyChecksum: UInt64
    var bodyPrefix: String

    /// Every value of the header `name` (case-insensitive), in order.
    func values(_ name: String) -> [String] {
        headers.filter { $0[0].lowercased() == name.lowercased() }.map { $0[1] }
    }
}

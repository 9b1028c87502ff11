import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// A loopback server whose responses carry the caching headers a test asks for, counting the
/// requests it answers per resource.
///
/// - `GET|HEAD /cache/:id?cc=&etag=&lm=&vary=&expires=&size=&cookie=&status=`: 200 (or `status`)
///   with those headers (`cc` is `Cache-Control`, `lm` is `Last-Modified`, `cookie` a
///   `Set-Cookie`); the body names the id, the hit number and the
///   `Vary`ed request header's value, padded to `size` bytes. A matching `If-None-Match` or
///   `If-Modified-Since` gets 304 with the same caching headers and `X-Revalidated: n` (and
///   `Set-Cookie: C` with `cookie304=C`); with `changed=1` validators are ignored and every answer
///   is a new 200.
/// - `POST|PUT|PATCH|DELETE /cache/:id[?location=&content-location=&unsafe-status=]`: 200 (or
///   `unsafe-status`; an unsafe request that should invalidate the stored GET, and the same-origin
///   URLs those headers name, when its status is 2xx or 3xx).
/// - `GET /hits/:id`: `full,notModified` counts for that id.
enum CacheServer {
    static let shared = SharedLoopbackServer { makeRouter() }

    private actor Hits {
        var full: [String: Int] = [:]
        var notModified: [String: Int] = [:]
        func count(_ id: String, notModified isNotModified: Bool) -> Int {
            if isNotModified {
                notModified[id, default: 0] += 1
                return notModified[id, default: 0]
            }
            full[id, default: 0] += 1
            return full[id, default: 0]
        }
        func report(_ id: String) -> String { "\(full[id] ?? 0),\(notModified[id] ?? 0)" }
    }

    static func url(_ path: String) async throws -> URL {
        try await shared.baseURL().appendingPathComponent(path)
    }

    private static func makeRouter() -> Router<BasicRequestContext> {
        let hits = Hits()
        let router = Router()
        let respond: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, context in
            let id = context.parameters.get("id") ?? "?"
            let query = request.uri.queryParameters
            var fields = HTTPFields()
            for (parameter, header) in [("cc", "Cache-Control"), ("etag", "ETag"), ("lm", "Last-Modified"), ("vary", "Vary"), ("expires", "Expires")] {
                if let value = query.get(parameter), let name = HTTPField.Name(header) { fields[name] = value }
            }
            // `etag=current`: the resource's ETag is the request's `X-Current` (it changes when the test says).
            let currentName = HTTPField.Name("X-Current")
            let etag: String? = query.get("etag") == "current" ? currentName.flatMap { request.headers[$0] } : query.get("etag")
            if let name = HTTPField.Name("ETag") { fields[name] = etag }
            let lastModified: String? = query.get("lm")
            let ifNoneMatch = HTTPField.Name("If-None-Match").flatMap { request.headers[$0] }
            let ifModifiedSince = HTTPField.Name("If-Modified-Since").flatMap { request.headers[$0] }
            let validatorsHonoured = query.get("changed") == nil  // `changed`: every answer is a new 200
            if validatorsHonoured, (etag != nil && ifNoneMatch == etag) || (etag == nil && lastModified != nil && ifModifiedSince == lastModified) {
                let count = await hits.count(id, notModified: true)
                if let name = HTTPField.Name("X-Revalidated") { fields[name] = "\(count)" }
                if let cookie = query.get("cookie304") { fields[.setCookie] = String(cookie) }
                return Response(status: .notModified, headers: fields)
            }
            let count = await hits.count(id, notModified: false)
            let varied = query.get("vary").flatMap { HTTPField.Name($0) }.flatMap { request.headers[$0] } ?? "-"
            var body = "\(id) #\(count) \(varied)"
            if let size = query.get("size").flatMap({ Int($0) }), size > body.utf8.count {
                body += String(repeating: ".", count: size - body.utf8.count)
            }
            fields[.contentType] = "text/plain"
            if let cookie = query.get("cookie") { fields[.setCookie] = String(cookie) }
            let status = query.get("status").flatMap { Int($0) }.map { HTTPResponse.Status(code: $0) } ?? .ok
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/cache/:id", use: respond)
        router.head("/cache/:id", use: respond)
        // Unsafe methods: 200, with `Location`/`Content-Location` when `?location=`/`?content-location=` name a path.
        let unsafe: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            var fields = HTTPFields()
            for (parameter, header) in [("location", HTTPField.Name.location), ("content-location", HTTPField.Name.contentLocation)] {
                if let value = request.uri.queryParameters.get(parameter) { fields[header] = String(value) }
            }
            let status = request.uri.queryParameters.get("unsafe-status").flatMap { Int($0) }.map { HTTPResponse.Status(code: $0) } ?? .ok
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: "changed")))
        }
        for method in [HTTPRequest.Method.post, .put, .patch, .delete] { router.on("/cache/:id", method: method, use: unsafe) }
        router.get("/hits/:id") { _, context in await hits.report(context.parameters.get("id") ?? "?") }
        return router
    }
}

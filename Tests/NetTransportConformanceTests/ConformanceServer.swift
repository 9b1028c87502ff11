import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import NetTestSupport

/// The loopback server every transport's conformance checks talk to (Hummingbird on 127.0.0.1).
///
/// - `/echo` (any method): `method|path|query|bodyLength|bodyHash|header lines`, one per line;
/// - `/bytes/:n`: n bytes of `ConformanceServer.pattern`, with Content-Length;
/// - `/redirect/:code?to=URL`: that status with a Location (`?loop=1`: to itself);
/// - `/delay/:ms`: "done" after ms milliseconds (`?key=K`: records `arrived` under K first);
/// - `/truncated`: declares 1,000 bytes, sends 100 and closes;
/// - `/gzip`: a gzip body with `Content-Encoding: gzip`;
/// - `/status/:code`: that status and a short body (none for 204 and 304);
/// - `/events/paced?key=K&count=N`: N Server-Sent Events (`id: i`, `data: event i`), each written
///   and recorded (`wrote i` under K) only after the test released `K-(i-1)`.
enum ConformanceServer {
    static let shared = SharedLoopbackServer { makeRouter() }
    static let gzipText = String(repeating: "Net decompresses gzip bodies. ", count: 200)
    static let gzipped = Data(base64Encoded: "H4sIAAAAAAACA+3JQQ2AMBAAMCunACkTAbuQPcgWjhfqsYCA9tuWT/Q85rXurMqK8x0r9tlH1hbNWmuttdZaa6211lprrbU/9gMnchV2cBcAAA==") ?? Data()

    /// Whether a `/delay` request under `key` reaches the server within ``TestTiming/hangGuard``:
    /// the signal to cancel a request in flight on, rather than a guess at how long sending takes.
    static func arrived(_ key: String) async -> Bool {
        await eventually(within: TestTiming.hangGuard) { StreamingEvents.shared.events(key) == ["arrived"] }
    }

    /// Byte i is i % 251.
    static func pattern(count: Int) -> Data { TestPattern.bytes(count: count) }

    /// FNV-1a 64 of `data`.
    static func hash(_ data: Data) -> UInt64 { FNV1a.hash(data) }

    /// The routes, for a server of a test's own (one whose connections only that test makes).
    static func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete, .head, .options] {
            router.on("/echo", method: method) { request, _ -> Response in
                var body = Data()
                for try await part in request.body { body.append(contentsOf: part.readableBytesView) }
                if let key = request.uri.queryParameters.get("hold") {
                    // Answers only once the test has released `key`: a client whose upload fails
                    // at its very end must see its own error, not a 200 that came first.
                    while !StreamingEvents.shared.isReleased(key) { try await Task.sleep(for: .milliseconds(2)) }
                }
                var lines = ["\(request.method.rawValue)|\(request.uri.path)|\(request.uri.query ?? "")|\(body.count)|\(hash(body))"]
                for field in request.headers { lines.append("\(field.name.rawName): \(field.value)") }
                return Response(status: .ok, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(string: lines.joined(separator: "\n"))))
            }
            router.on("/redirect/:code", method: method) { request, context -> Response in
                let code = context.parameters.get("code", as: Int.self) ?? 302
                // `?loop` points back at itself, for redirect limits.
                let target = request.uri.queryParameters.get("loop") != nil ? request.uri.description : (request.uri.queryParameters.get("to") ?? "/echo")
                return Response(status: HTTPResponse.Status(code: code), headers: [.location: target])
            }
        }
        router.get("/bytes/:n") { _, context -> Response in
            let count = context.parameters.get("n", as: Int.self) ?? 0
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: pattern(count: count))))
        }
        router.get("/delay/:ms") { request, context -> String in
            if let key = request.uri.queryParameters.get("key") { StreamingEvents.shared.record("arrived", key: key) }
            try await Task.sleep(for: .milliseconds(context.parameters.get("ms", as: Int.self) ?? 0))
            return "done"
        }
        router.get("/truncated") { _, _ -> Response in
            Response(status: .ok, headers: [.contentLength: "1000"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(repeating: 0x61, count: 100))
                throw CancellationError()  // ends the response early: the connection is closed
            })
        }
        router.get("/gzip") { _, _ -> Response in
            Response(status: .ok, headers: [.contentEncoding: "gzip", .contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: gzipped)))
        }
        router.get("/status/:code") { _, context -> Response in
            let code = context.parameters.get("code", as: Int.self) ?? 200
            // 204 and 304 have no body by definition (RFC 9110): Hummingbird would write one, and a
            // client reusing the connection would then read it as the next response's start.
            let body = code == 204 || code == 304 ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: "status body"))
            return Response(status: HTTPResponse.Status(code: code), body: body)
        }
        router.get("/events/paced") { request, _ -> Response in
            let key = request.uri.queryParameters.get("key") ?? ""
            let count = request.uri.queryParameters.get("count", as: Int.self) ?? 1
            return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
                for index in 1...count {
                    if index > 1 {
                        // Waits for the test's signal that event index-1 reached it.
                        while !StreamingEvents.shared.isReleased("\(key)-\(index - 1)") { try await Task.sleep(for: .milliseconds(2)) }
                    }
                    StreamingEvents.shared.record("wrote \(index)", key: key)  // before the write, so the client cannot see it first
                    try await writer.write(ByteBuffer(string: "id: \(index)\ndata: event \(index)\n\n"))
                }
                try await writer.finish(nil)
            })
        }
        return router
    }
}

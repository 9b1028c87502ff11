import Foundation
import Hummingbird
import NIOCore

/// A Hummingbird server on 127.0.0.1 that every HTTP benchmark talks to, started once per process.
///
/// - `GET /small`: 2 bytes.
/// - `GET /bytes/N`: N bytes, sent in 1 MiB buffers that are allocated once.
/// - `POST /upload`: reads the body and answers with its length.
/// - `GET /api/items`, `GET /api/downloads/N`: a small JSON item list and N bytes, as the OpenAPI
///   test document's `listItems` and `download` operations answer them.
/// - `GET /events/timed?count=N&gap-ms=M`: N Server-Sent Events, M ms apart, each carrying the
///   moment it was written (`CLOCK_MONOTONIC` nanoseconds, the same clock in every process).
///
/// Started through `LoopbackHTTP.swift`, linked from the root package's tests.
public enum LoopbackServer {
    private static let shared = SharedLoopbackServer { makeRouter() }

    /// The server's base URL, starting it on first use; with `NET_BENCH_SERVER` set (the URL a
    /// `NetLoad server` printed), that server in another process instead, so the client's CPU is
    /// its own and each can be pinned to a core of its own.
    public static func baseURL() async throws -> URL {
        if let external = ProcessInfo.processInfo.environment["NET_BENCH_SERVER"], let url = URL(string: external) { return url }
        return try await shared.baseURL()
    }

    private static func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/small") { _, _ in "ok" }
        router.get("/bytes/:count") { _, context -> Response in
            byteStream(count: context.parameters.get("count", as: Int.self) ?? 0)
        }
        // The two operations of Tests/NetOpenAPITests/OpenAPI/openapi.yaml that NetLoad's `openapi`
        // command drives through the generated client: `listItems` and `download`.
        let itemList = ByteBuffer(string: #"{"items":[{"id":1,"name":"kettle","tags":["kitchen"]}],"query":"limit=1"}"#)
        router.get("/api/items") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: itemList))
        }
        router.get("/api/downloads/:size") { _, context -> Response in
            byteStream(count: context.parameters.get("size", as: Int.self) ?? 0)
        }
        router.get("/events/timed") { request, _ -> Response in
            let count = request.uri.queryParameters.get("count", as: Int.self) ?? 100
            let gap = request.uri.queryParameters.get("gap-ms", as: Int.self) ?? 5
            return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
                for _ in 0..<count {
                    try await writer.write(ByteBuffer(string: "data: \(MonotonicTime.nanoseconds())\n\n"))
                    try await Task.sleep(for: .milliseconds(gap))
                }
                try await writer.finish(nil)
            })
        }
        router.post("/upload") { request, _ -> String in
            var total = 0
            for try await part in request.body { total += part.readableBytes }
            return "\(total)"
        }
        return router
    }

    private static let chunk = ByteBuffer(repeating: 0x61, count: 1 << 20)

    /// `count` bytes of `a` with their length, in 1 MiB buffers allocated once.
    private static func byteStream(count: Int) -> Response {
        Response(status: .ok, headers: [.contentLength: "\(count)", .contentType: "application/octet-stream"],
                 body: ResponseBody { writer in
                     var remaining = count
                     while remaining > 0 {
                         let slice = chunk.getSlice(at: 0, length: min(remaining, chunk.readableBytes)) ?? chunk
                         try await writer.write(slice)
                         remaining -= slice.readableBytes
                     }
                     try await writer.finish(nil)
                 })
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds: one clock for every process on the machine, so a time
/// written by the server can be compared with the client's.
public enum MonotonicTime {
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

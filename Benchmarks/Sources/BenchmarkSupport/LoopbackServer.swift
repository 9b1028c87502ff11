import Foundation
import Hummingbird
import NIOCore

/// A Hummingbird server on 127.0.0.1 that every HTTP benchmark talks to, started once per process.
///
/// - `GET /small`: 2 bytes.
/// - `GET /bytes/N`: N bytes, sent in 1 MiB buffers that are allocated once.
/// - `POST /upload`: reads the body and answers with its length.
public actor LoopbackServer {
    /// The process's server.
    public static let shared = LoopbackServer()

    private var started: Task<URL, any Error>?

    /// The server's base URL, starting it on first use.
    public func baseURL() async throws -> URL {
        if let started { return try await started.value }
        let task = Task { try await Self.start() }
        started = task
        return try await task.value
    }

    private static func start() async throws -> URL {
        let router = Router()
        router.get("/small") { _, _ in "ok" }
        let chunk = ByteBuffer(repeating: 0x61, count: 1 << 20)
        router.get("/bytes/:count") { _, context -> Response in
            let count = context.parameters.get("count", as: Int.self) ?? 0
            return Response(status: .ok, headers: [.contentLength: "\(count)", .contentType: "application/octet-stream"],
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
        router.post("/upload") { request, _ -> String in
            var total = 0
            for try await part in request.body { total += part.readableBytes }
            return "\(total)"
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) })
        Task { try await app.runService(gracefulShutdownSignals: []) }
        for await port in ports {
            guard port > 0, let url = URL(string: "http://127.0.0.1:\(port)") else { break }
            return url
        }
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the loopback server did not start"])
    }
}

import Foundation
// One file, linked into each test target that needs a loopback server (NetTransportTests,
// NetMultipartTests, NetTransportConformanceTests and the benchmarks): as a
// target of its own it would be a root-package library depending on Hummingbird, and the root's
// targets depend on no package; only test targets may.
import Hummingbird
import NIOCore

/// Why a loopback server could not be started.
struct LoopbackServerFailed: Error, CustomStringConvertible {
    let description: String
}

/// Starts a Hummingbird server for `router` on 127.0.0.1 with a port the kernel picks, and
/// returns its base URL once it listens. The server runs until the test process exits.
/// `channelHandlers` makes handlers for each connection's pipeline, between its HTTP parts and
/// Hummingbird's responder.
func startLoopbackServer(_ router: Router<BasicRequestContext>,
                         channelHandlers: @escaping @Sendable () -> [any RemovableChannelHandler] = { [] }) async throws -> URL {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router,
        server: .http1(configuration: .init(additionalChannelHandlers: channelHandlers())),
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) })
    Task { try await app.runService(gracefulShutdownSignals: []) }
    for await port in ports {
        guard port > 0, let url = URL(string: "http://127.0.0.1:\(port)") else { break }
        return url
    }
    throw LoopbackServerFailed(description: "the loopback HTTP server did not start")
}

/// A loopback server started on first use and shared by every test in the process.
actor SharedLoopbackServer {
    private let makeRouter: @Sendable () async throws -> Router<BasicRequestContext>
    private let channelHandlers: @Sendable () -> [any RemovableChannelHandler]
    private var started: Task<URL, any Error>?

    /// `makeRouter` builds the routes when the first test asks for the server;
    /// `channelHandlers` as in `startLoopbackServer`.
    init(channelHandlers: @escaping @Sendable () -> [any RemovableChannelHandler] = { [] },
         _ makeRouter: @escaping @Sendable () async throws -> Router<BasicRequestContext>) {
        self.makeRouter = makeRouter
        self.channelHandlers = channelHandlers
    }

    /// The server's base URL, starting it on first use.
    func baseURL() async throws -> URL {
        if let started { return try await started.value }
        let (makeRouter, channelHandlers) = (self.makeRouter, self.channelHandlers)
        let task = Task { try await startLoopbackServer(makeRouter(), channelHandlers: channelHandlers) }
        started = task
        return try await task.value
    }
}

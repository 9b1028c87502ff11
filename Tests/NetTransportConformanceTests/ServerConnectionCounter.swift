import NIOCore
import Synchronization

/// Counts a server's connections as the server itself sees them: one handler per accepted
/// connection, added when its pipeline is built and removed when it closes. The kernel's socket
/// table, read by the server's port number, is an indirect count: on CI it once showed 7 sockets
/// toward the port of a pool of 4, never explained or reproduced.
final class ServerConnectionCounter: Sendable {
    private struct Counts {
        var open = 0
        var peak = 0
        var accepted = 0
    }
    private let counts = Mutex(Counts())

    /// Connections accepted so far.
    var accepted: Int { counts.withLock { $0.accepted } }
    /// The most connections open at one time.
    var peak: Int { counts.withLock { $0.peak } }

    /// A handler for one connection's pipeline (`startLoopbackServer`'s `channelHandlers`).
    func handler() -> any RemovableChannelHandler { Handler(counter: self) }

    fileprivate func opened() {
        counts.withLock { counts in
            counts.accepted += 1
            counts.open += 1
            counts.peak = max(counts.peak, counts.open)
        }
    }

    fileprivate func closed() { counts.withLock { $0.open -= 1 } }

    private final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        // Reads pass through untouched (the default `channelRead`): only the pipeline's life counts.
        typealias InboundIn = Any
        private let counter: ServerConnectionCounter

        init(counter: ServerConnectionCounter) { self.counter = counter }

        func handlerAdded(context: ChannelHandlerContext) { counter.opened() }

        func handlerRemoved(context: ChannelHandlerContext) { counter.closed() }
    }
}

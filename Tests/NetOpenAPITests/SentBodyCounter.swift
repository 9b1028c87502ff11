import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Counts, for each download key, the response body bytes that the server's socket has taken
/// (a write's promise succeeds once its bytes are in the kernel).
///
/// What the download handler produces is not that: Hummingbird's writer hands each chunk to the
/// connection's event loop and returns before the loop has written it, so a producer that runs
/// while the loop waits for a core queues chunks in the server's own memory, however paused the
/// client is. Counted here, what is ahead of the client's reader is only what the kernel and the
/// client hold.
final class SentBodyCounter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The request header naming a download (the tests set it with a middleware), by which the
    /// download handler and this counter both file their counts.
    static let keyField = HTTPField.Name("X-Download-Key")

    private let state: OpenAPIServerState
    /// The key of the request being answered, if it has one (HTTP/1: one at a time).
    private var key: String?

    init(state: OpenAPIServerState) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data) {
            key = Self.keyField.flatMap { request.headerFields[$0] }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard let key, case .body(let buffer) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        let (count, state) = (buffer.readableBytes, self.state)
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.whenSuccess { state.addSent(count, for: key) }
        context.write(data, promise: written)
    }
}

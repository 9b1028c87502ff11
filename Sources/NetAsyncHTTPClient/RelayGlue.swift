#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import NIOCore

/// One end of a byte pipe between two channels on the same event loop: what one reads, the other
/// writes. A side reads only while its partner can write, so a slow peer slows the other down
/// instead of filling memory; when either closes or fails, both close.
final class RelayGlue: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: RelayGlue?
    private var context: ChannelHandlerContext?
    private var readPending = false

    /// Two ends joined to each other.
    static func pair() -> (RelayGlue, RelayGlue) {
        let first = RelayGlue()
        let second = RelayGlue()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    /// Joins the connection of `upstream` (to the origin, ready for bytes) with `inbound` (from
    /// AsyncHTTPClient, not reading until now): both channels run on one event loop.
    static func join(_ upstream: ChannelHandlerContext, with inbound: any Channel) throws {
        let (toOrigin, toClient) = pair()
        try upstream.pipeline.syncOperations.addHandler(toOrigin)
        try inbound.pipeline.syncOperations.addHandler(toClient)
        inbound.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in inbound.close(promise: nil) }
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.context?.write(wrapOutboundOut(unwrapInboundIn(data)), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.context?.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.context?.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
        partner?.context?.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let partner, partner.readPending, let partnerContext = partner.context {
            partner.readPending = false
            partnerContext.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if partner?.context?.channel.isWritable == true {
            context.read()
        } else {
            readPending = true
        }
    }
}
#endif

#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import NetCore
import NIOCore
import NIOSSL
import NIOTLS

/// Sits behind the relay's TLS handler on the connection to an `https` origin. When the handshake
/// (chain, host name and dates already checked by BoringSSL) completes, it checks the leaf
/// certificate's public key against the host's pins, if it has any; only then are the two
/// connections joined.
/// On a mismatch, or any failure before that, both close with nothing relayed, and the failure
/// is recorded for the transport to report.
final class PinCheckHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let host: String
    private let pins: PublicKeyPins
    private let failures: RelayFailures
    private let inbound: any Channel
    private var joined = false
    /// Set by the first failure: closing after it can raise more (an unclean TLS shutdown when the
    /// server drops the connection), which must not replace the cause.
    private var failed = false

    init(host: String, pins: PublicKeyPins, failures: RelayFailures, inbound: any Channel) {
        self.host = host
        self.pins = pins
        self.failures = failures
        self.inbound = inbound
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let tls = event as? TLSUserEvent, case .handshakeCompleted = tls else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        let certificate = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
        guard let spki = try? certificate?.extractPublicKey().toSPKIBytes(), pins.accepts(publicKeyInfo: spki, for: host) else {
            fail(context, .publicKeyPinMismatch(host: host))
            return
        }
        context.fireUserInboundEventTriggered(event)
        do {
            try RelayGlue.join(context, with: inbound)
            joined = true
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
        } catch {
            fail(context, .tls("\(host): the relay could not join the connections (\(error))"))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, .tls("\(host): \(error)"))
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !joined { inbound.close(promise: nil) }
        context.fireChannelInactive()
    }

    private func fail(_ context: ChannelHandlerContext, _ failure: NetworkError.TransportFailure) {
        guard !joined, !failed else { return }
        failed = true
        failures.record(.transport(failure))
        context.close(promise: nil)
        inbound.close(promise: nil)
    }
}
#endif

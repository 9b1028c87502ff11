#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import NetCore
import NIOCore

/// The client side of a SOCKS5 handshake (RFC 1928) on a relay's connection to its proxy, with
/// the username/password method (RFC 1929) when the proxy has credentials, which
/// AsyncHTTPClient's own SOCKS client lacks. The origin's host name goes to the proxy as a name
/// (curl's `socks5h`), an IP literal as an address.
///
/// When the proxy has connected to the origin, the handler removes itself and calls `tunnelOpened`
/// with the channel, now a byte pipe to the origin. Any failure before that is recorded once, as a
/// typed proxy error naming the proxy (its password redacted), and closes the connection.
final class SOCKS5Negotiation: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Step { case greeting, authentication, connection, open, failed }

    private let proxy: NetworkProxy
    private let originHost: String
    private let originPort: Int
    private let failed: (NetworkError) -> Void
    private let tunnelOpened: (ChannelHandlerContext) -> Void
    private var step = Step.greeting
    private var received = ByteBuffer()

    /// - Parameters:
    ///   - failed: called at most once, with the reason the tunnel could not be opened.
    ///   - tunnelOpened: called once the proxy has connected to the origin, before this handler
    ///     leaves the pipeline.
    init(proxy: NetworkProxy, originHost: String, originPort: Int,
         failed: @escaping (NetworkError) -> Void, tunnelOpened: @escaping (ChannelHandlerContext) -> Void) {
        self.proxy = proxy
        self.originHost = originHost
        self.originPort = originPort
        self.failed = failed
        self.tunnelOpened = tunnelOpened
    }

    func channelActive(context: ChannelHandlerContext) {
        // Version 5, one method: username/password (2) when there are credentials, else none (0).
        send(context, [5, 1, proxy.credentials == nil ? 0 : 2])
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        received.writeBuffer(&chunk)
        while step != .open, step != .failed, advance(context) {}
    }

    func channelInactive(context: ChannelHandlerContext) {
        if step != .open { fail(context, .cannotConnect(proxy: "\(proxy)", reason: "it closed the connection during the SOCKS5 handshake")) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, .cannotConnect(proxy: "\(proxy)", reason: "\(error)"))
    }

    /// Handles one complete reply if it has arrived; false while more bytes are needed.
    private func advance(_ context: ChannelHandlerContext) -> Bool {
        switch step {
        case .greeting:
            guard let reply = received.readBytes(length: 2) else { return false }
            let wanted: UInt8 = proxy.credentials == nil ? 0 : 2
            guard reply[0] == 5 else { return protocolError(context, "its greeting is not SOCKS5") }
            guard reply[1] == wanted else {
                // 0xFF: none of the offered methods; a proxy that wants credentials we lack says so.
                fail(context, proxy.credentials == nil && reply[1] == 0xFF
                     ? .authenticationFailed(proxy: "\(proxy)")
                     : .cannotConnect(proxy: "\(proxy)", reason: "it accepts none of the offered SOCKS5 methods (answered \(reply[1]))"))
                return false
            }
            if let credentials = proxy.credentials {
                step = .authentication
                // Lengths were checked when the relay was set up (at most 255 bytes each).
                let user = Array(credentials.username.utf8), password = Array(credentials.password.utf8)
                send(context, [1, UInt8(user.count)] + user + [UInt8(password.count)] + password)
            } else {
                sendConnect(context)
            }
            return true
        case .authentication:
            guard let reply = received.readBytes(length: 2) else { return false }
            guard reply[1] == 0 else {
                fail(context, .authenticationFailed(proxy: "\(proxy)"))
                return false
            }
            sendConnect(context)
            return true
        case .connection:
            return connectionReply(context)
        case .open, .failed:
            return false
        }
    }

    private func sendConnect(_ context: ChannelHandlerContext) {
        step = .connection
        var request: [UInt8] = [5, 1, 0]
        if let address = IPAddressText.bytes(originHost) {
            request += [address.count == 4 ? 1 : 4] + address
        } else {
            let name = Array(originHost.utf8)  // at most 253 bytes: a host name in a parsed URL
            request += [3, UInt8(clamping: name.count)] + name.prefix(255)
        }
        request += [UInt8(originPort >> 8 & 0xFF), UInt8(originPort & 0xFF)]
        send(context, request)
    }

    /// The proxy's answer to CONNECT: version, reply code, reserved, then a bound address whose
    /// length depends on its type, and a port.
    private func connectionReply(_ context: ChannelHandlerContext) -> Bool {
        guard let head = received.getBytes(at: received.readerIndex, length: 5) else { return false }
        guard head[0] == 5 else { return protocolError(context, "its reply to CONNECT is not SOCKS5") }
        guard head[1] == 0 else {
            fail(context, .cannotConnect(proxy: "\(proxy)", reason: "it could not connect to \(originHost):\(originPort): \(Self.replyText(head[1]))"))
            return false
        }
        let length: Int
        switch head[3] {
        case 1: length = 4 + 4 + 2
        case 4: length = 4 + 16 + 2
        case 3: length = 4 + 1 + Int(head[4]) + 2
        default: return protocolError(context, "its reply to CONNECT has an unknown address type \(head[3])")
        }
        guard received.readableBytes >= length else { return false }
        received.moveReaderIndex(forwardBy: length)
        step = .open
        tunnelOpened(context)
        // Bytes the origin sent early belong to whatever now follows this handler.
        if received.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(received)) }
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
        return false
    }

    private func protocolError(_ context: ChannelHandlerContext, _ reason: String) -> Bool {
        fail(context, .cannotConnect(proxy: "\(proxy)", reason: reason))
        return false
    }

    private func fail(_ context: ChannelHandlerContext, _ failure: NetworkError.ProxyFailure) {
        guard step != .open, step != .failed else { return }
        step = .failed
        failed(.transport(.proxy(failure)))
        context.close(promise: nil)
    }

    private func send(_ context: ChannelHandlerContext, _ bytes: [UInt8]) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    /// RFC 1928's reply codes, in words.
    static func replyText(_ code: UInt8) -> String {
        switch code {
        case 1: "general SOCKS server failure (1)"
        case 2: "connection not allowed by its rules (2)"
        case 3: "network unreachable (3)"
        case 4: "host unreachable (4)"
        case 5: "connection refused (5)"
        case 6: "TTL expired (6)"
        case 7: "command not supported (7)"
        case 8: "address type not supported (8)"
        default: "reply code \(code)"
        }
    }
}
#endif

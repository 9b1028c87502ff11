#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetCore
@_spi(NetInternals) import NetTransport
import NIOCore
import NIOPosix
import NIOSSL

/// What went wrong on a relay's connections to its origin, for the transport to report instead
/// of the "connection closed" AsyncHTTPClient sees.
final class RelayFailures: Sendable {
    private let state = Locked<(count: Int, last: NetworkError?)>((0, nil))

    /// How many failures so far: read before a request, to find the ones that happened during it.
    var count: Int { state.withLock { $0.count } }

    func record(_ error: NetworkError) {
        state.withLock { state in
            state.count += 1
            state.last = error
        }
    }

    /// The latest failure if any happened after `count` was `mark`.
    func failure(since mark: Int) -> NetworkError? {
        state.withLock { $0.count > mark ? $0.last : nil }
    }
}

/// Where a relay connects: the origin, whether the relay makes the TLS connection (checking
/// pins), and the SOCKS5 proxy on the way, if any.
struct RelayRoute: Hashable, Sendable {
    var host: String
    var port: Int
    var secure: Bool
    var socks: NetworkProxy?
}

/// A connection AsyncHTTPClient cannot make itself, made for it: a TLS connection whose server key
/// is checked against pins (AsyncHTTPClient lets no caller see the certificate), and a tunnel
/// through a SOCKS5 proxy that wants a username and password (its SOCKS client has no such
/// method). AsyncHTTPClient sends plain HTTP over a Unix socket to the relay, in a directory only
/// this user can enter; the relay connects (through the proxy, if any), makes the TLS connection
/// with the transport's roots, client certificate and minimum version and BoringSSL's full
/// verification, checks the pins, and only then relays bytes both ways.
///
/// One relay per route; each inbound connection gets its own connection to the origin, so
/// AsyncHTTPClient's pool and keep-alive work as usual.
final class OriginRelay: Sendable {
    let route: RelayRoute
    let socketPath: String
    let failures: RelayFailures
    private let server: any Channel

    private init(route: RelayRoute, socketPath: String, failures: RelayFailures, server: any Channel) {
        self.route = route
        self.socketPath = socketPath
        self.failures = failures
        self.server = server
    }

    /// - Parameter context: the TLS context, required when `route.secure`.
    static func start(route: RelayRoute, context: NIOSSLContext?, pins: PublicKeyPins,
                      socketPath: String, connectTimeout: TimeAmount) async throws -> OriginRelay {
        let failures = RelayFailures()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(ChannelOptions.autoRead, value: false)  // until the way to the origin is open
            .childChannelInitializer { inbound in
                connect(inbound, route: route, context: context, pins: pins, failures: failures, timeout: connectTimeout)
                return inbound.eventLoop.makeSucceededVoidFuture()
            }
            .bind(unixDomainSocketPath: socketPath, cleanupExistingSocketFile: true)
            .get()
        return OriginRelay(route: route, socketPath: socketPath, failures: failures, server: server)
    }

    func close() {
        server.close(promise: nil)
    }

    private static func connect(_ inbound: any Channel, route: RelayRoute, context: NIOSSLContext?, pins: PublicKeyPins,
                                failures: RelayFailures, timeout: TimeAmount) {
        let (host, port) = route.socks.map { ($0.host, $0.port) } ?? (route.host, route.port)
        ClientBootstrap(group: inbound.eventLoop)  // both channels on one loop: RelayGlue relies on it
            .connectTimeout(timeout)
            .channelInitializer { upstream in
                do {
                    let operations = upstream.pipeline.syncOperations
                    guard let proxy = route.socks else {
                        // Direct: only `https` routes have a relay of their own.
                        try operations.addHandlers(try secure(route, context: context, pins: pins, failures: failures, inbound: inbound))
                        return upstream.eventLoop.makeSucceededVoidFuture()
                    }
                    let negotiation = SOCKS5Negotiation(
                        proxy: proxy, originHost: route.host, originPort: route.port,
                        failed: { error in
                            failures.record(error)
                            inbound.close(promise: nil)
                        },
                        tunnelOpened: { tunnel in
                            do {
                                if route.secure {
                                    let handlers = try secure(route, context: context, pins: pins, failures: failures, inbound: inbound)
                                    try tunnel.pipeline.syncOperations.addHandlers(handlers, position: .after(tunnel.handler))
                                } else {
                                    try RelayGlue.join(tunnel, with: inbound)
                                }
                            } catch {
                                failures.record(.transport(.other("\(route.host): the relay could not use the tunnel (\(error))")))
                                tunnel.close(promise: nil)
                                inbound.close(promise: nil)
                            }
                        })
                    try operations.addHandler(negotiation)
                    return upstream.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return upstream.eventLoop.makeFailedFuture(error)
                }
            }
            .connect(host: host, port: port)
            .whenComplete { result in
                switch result {
                case .success(let upstream):
                    // AsyncHTTPClient leaving (a deadline, a cancel) closes `inbound`; before the
                    // two are joined nothing else would close `upstream`, and an origin or proxy
                    // stalled in its handshake would hold it open for good. Closing it again once
                    // joined does nothing.
                    inbound.closeFuture.whenComplete { _ in upstream.close(promise: nil) }
                case .failure(let error):
                    let reason = "\(error)"
                    failures.record(route.socks.map { .transport(.proxy(.cannotConnect(proxy: "\($0)", reason: reason))) }
                                    ?? .transport(.cannotConnect("\(host):\(port): \(reason)")))
                    inbound.close(promise: nil)
                }
            }
    }

    /// The TLS handler and the pin check that follows its handshake.
    private static func secure(_ route: RelayRoute, context: NIOSSLContext?, pins: PublicKeyPins, failures: RelayFailures,
                               inbound: any Channel) throws -> [any ChannelHandler] {
        guard let context else { throw NetworkError.transport(.invalidTLSSettings("the TLS settings do not load")) }
        // No SNI for an IP literal (RFC 6066); BoringSSL then checks the address against the
        // certificate's IP entries.
        let serverName = IPAddressText.bytes(route.host) == nil ? route.host : nil
        return [try NIOSSLClientHandler(context: context, serverHostname: serverName),
                PinCheckHandler(host: route.host, pins: pins, failures: failures, inbound: inbound)]
    }
}
#endif

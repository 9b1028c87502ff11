#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetCore
import NetTransport
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

/// Public-key pinning for AsyncHTTPClientTransport: AsyncHTTPClient exposes no certificate check of
/// its own, so requests to a pinned origin go as plain HTTP over a Unix socket to this relay,
/// which makes the TLS connection to the origin itself (the transport's roots, client
/// certificate and minimum version; BoringSSL's full verification), checks the pin, and only then
/// relays bytes both ways. The socket lives in a directory only this user can enter.
///
/// One relay per pinned origin (host and port); each inbound connection gets its own TLS
/// connection, so AsyncHTTPClient's pool and keep-alive work as usual.
final class PinningRelay: Sendable {
    let socketPath: String
    let failures: RelayFailures
    private let server: any Channel

    private init(socketPath: String, failures: RelayFailures, server: any Channel) {
        self.socketPath = socketPath
        self.failures = failures
        self.server = server
    }

    static func start(host: String, port: Int, context: NIOSSLContext, pins: PublicKeyPins,
                      socketPath: String, connectTimeout: TimeAmount) async throws -> PinningRelay {
        let failures = RelayFailures()
        // No SNI for an IP literal (RFC 6066); BoringSSL then checks the address against the
        // certificate's IP entries.
        let serverName = IPAddressText.bytes(host) == nil ? host : nil
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(ChannelOptions.autoRead, value: false)  // until the origin's TLS is up and pinned
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .connectTimeout(connectTimeout)
                    .channelInitializer { upstream in
                        do {
                            let operations = upstream.pipeline.syncOperations
                            try operations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                            try operations.addHandler(PinCheckHandler(host: host, pins: pins, failures: failures, inbound: inbound))
                            return upstream.eventLoop.makeSucceededVoidFuture()
                        } catch {
                            return upstream.eventLoop.makeFailedFuture(error)
                        }
                    }
                    .connect(host: host, port: port)
                    .whenFailure { error in
                        failures.record(.transport(.cannotConnect("\(host):\(port): \(error)")))
                        inbound.close(promise: nil)
                    }
                return inbound.eventLoop.makeSucceededVoidFuture()
            }
            .bind(unixDomainSocketPath: socketPath, cleanupExistingSocketFile: true)
            .get()
        return PinningRelay(socketPath: socketPath, failures: failures, server: server)
    }

    func close() {
        server.close(promise: nil)
    }
}
#endif

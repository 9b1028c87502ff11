#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetCore
import NetTransport
import NIOCore
import NIOSSL

/// The transport's pinning relays, one per pinned `https` origin, started on first use and
/// closed with the transport.
final class PinnedOrigins: Sendable {
    private let pins: PublicKeyPins
    private let context: NIOSSLContext?
    private let connectTimeout: TimeAmount
    private let directory: String
    private let relays = Locked<[String: Task<PinningRelay, any Error>]>([:])

    init(tls: TLSSettings, connectTimeout: Duration) {
        pins = tls.pinnedPublicKeys
        self.connectTimeout = .nanoseconds(connectTimeout.wholeNanoseconds)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-pins-\(UUID().uuidString)").path
        guard !tls.pinnedPublicKeys.isEmpty, var configuration = try? tls.clientConfiguration() else {
            context = nil  // nothing pinned, or settings that fail every request before this is asked
            return
        }
        configuration.applicationProtocols = ["http/1.1"]  // AsyncHTTPClient speaks HTTP/1.1 to the relay
        context = try? NIOSSLContext(configuration: configuration)
    }

    /// The relay for `url`'s origin when it is an `https` URL to a pinned host, else `nil`.
    func relay(for url: URL, proxied: Bool) async throws -> PinningRelay? {
        guard let host = url.host(percentEncoded: false), url.scheme?.lowercased() == "https", pins.isPinned(host) else { return nil }
        guard !proxied else {
            throw NetworkError.transport(.unsupportedSetting(
                "\(host) is pinned and its requests go through a proxy: AsyncHTTPClientTransport checks pins only on direct connections"))
        }
        guard let context else { throw NetworkError.transport(.invalidTLSSettings("the TLS settings for pinned hosts do not load")) }
        let port = url.port ?? 443
        let key = "\(host.lowercased()):\(port)"
        let task = relays.withLock { relays in
            if let existing = relays[key] { return existing }
            let socketPath = "\(directory)/\(relays.count).sock"
            let directory = directory, pins = pins, timeout = connectTimeout
            let started = Task {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                return try await PinningRelay.start(host: host, port: port, context: context, pins: pins, socketPath: socketPath, connectTimeout: timeout)
            }
            relays[key] = started
            return started
        }
        return try await task.value
    }

    /// Closes every relay and removes their sockets.
    func shutdown() {
        let started = relays.withLock { relays in
            defer { relays.removeAll() }
            return Array(relays.values)
        }
        let directory = directory
        Task {
            for task in started { try? await task.value.close() }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}
#endif

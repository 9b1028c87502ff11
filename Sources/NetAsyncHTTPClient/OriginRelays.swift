#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetCore
@_spi(NetInternals) import NetTransport
import NIOCore
import NIOSSL

/// The transport's relays (`OriginRelay`), one per route that needs one, started on first use and
/// closed with the transport: `https` to a pinned host, and anything through a SOCKS5 proxy with
/// credentials.
///
/// At most ``maximumRelays`` are open at once: each holds a listening socket and its file, and the
/// routes a transport meets are the servers' to choose (a redirect to a new port each time), so a
/// new route past the limit closes the least recently used relay. A relay that failed to start is
/// not kept: the next request to its route tries again.
final class OriginRelays: Sendable {
    /// The most relays open at once.
    static let maximumRelays = 64

    private struct Entry: Sendable {
        let started: Task<OriginRelay, any Error>
        let socketPath: String
        var lastUse: UInt64
    }

    private struct Table: Sendable {
        var entries: [RelayRoute: Entry] = [:]
        /// Counts uses, for least-recently-used order.
        var clock: UInt64 = 0
        /// Relays made so far: names each socket, never reused while an old one may be open.
        var made = 0
    }

    private let pins: PublicKeyPins
    private let context: NIOSSLContext?
    private let connectTimeout: TimeAmount
    /// Where the relays' sockets are: a directory of this transport's own, made (mode 0700) with
    /// the first relay and removed at shutdown.
    let directory: String
    private let relays = Locked(Table())
    /// No host is pinned and no proxy needs a relay: no request ever waits for one.
    let neverRelays: Bool

    init(tls: TLSSettings, proxies: ProxyConfiguration, connectTimeout: Duration) {
        pins = tls.pinnedPublicKeys
        self.connectTimeout = .nanoseconds(connectTimeout.wholeNanoseconds)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-relays-\(UUID().uuidString)").path
        let relaysSOCKS = [proxies.httpProxy, proxies.httpsProxy].contains { $0.map(Self.needsRelay) ?? false }
        neverRelays = tls.pinnedPublicKeys.isEmpty && !relaysSOCKS
        guard !tls.pinnedPublicKeys.isEmpty || relaysSOCKS, var configuration = try? tls.clientConfiguration() else {
            context = nil  // no relay will make a TLS connection, or settings that fail every request before this is asked
            return
        }
        configuration.applicationProtocols = ["http/1.1"]  // AsyncHTTPClient speaks HTTP/1.1 to the relay
        context = try? NIOSSLContext(configuration: configuration)
    }

    /// Whether requests through `proxy` go through a relay: a SOCKS5 proxy with credentials.
    static func needsRelay(_ proxy: NetworkProxy) -> Bool {
        proxy.kind == .socks5 && proxy.credentials != nil
    }

    /// Whether a request through `proxy` may need a relay: some host is pinned, or the proxy needs
    /// one. `false` for most transports, which then never wait for ``relay(for:proxy:)``.
    func mayRelay(through proxy: NetworkProxy?) -> Bool {
        !pins.isEmpty || proxy.map(Self.needsRelay) == true
    }

    /// The relay for a request to `url` through `proxy`, or `nil` when AsyncHTTPClient connects
    /// by itself.
    func relay(for url: URL, proxy: NetworkProxy?) async throws -> OriginRelay? {
        let relaysProxy = proxy.map(Self.needsRelay) == true
        guard !pins.isEmpty || relaysProxy else { return nil }  // without parsing the URL
        guard let host = url.host(percentEncoded: false) else { return nil }
        let secure = url.scheme?.lowercased() == "https"
        let pinned = secure && pins.isPinned(host)
        guard pinned || relaysProxy else { return nil }
        if pinned, let proxy, proxy.kind == .http {
            throw NetworkError.transport(.unsupportedSetting(
                "\(host) is pinned and its requests go through the HTTP proxy \(proxy): AsyncHTTPClientTransport checks pins on direct and SOCKS5 connections only"))
        }
        if secure, context == nil { throw NetworkError.transport(.invalidTLSSettings("the TLS settings do not load")) }
        // Host names are case-insensitive: `HOST` and `host` share a relay.
        let route = RelayRoute(host: host.lowercased(), port: url.port ?? (secure ? 443 : 80), secure: secure, socks: proxy)
        let (task, evicted) = relays.withLock { table -> (Task<OriginRelay, any Error>, Entry?) in
            table.clock += 1
            if let existing = table.entries[route] {
                table.entries[route]?.lastUse = table.clock
                return (existing.started, nil)
            }
            table.made += 1
            let socketPath = "\(directory)/\(table.made).sock"
            let directory = directory, pins = pins, context = context, timeout = connectTimeout
            let started = Task {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                return try await OriginRelay.start(route: route, context: context, pins: pins, socketPath: socketPath, connectTimeout: timeout)
            }
            table.entries[route] = Entry(started: started, socketPath: socketPath, lastUse: table.clock)
            guard table.entries.count > Self.maximumRelays,
                  let oldest = table.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return (started, nil) }
            table.entries[oldest.key] = nil
            return (started, oldest.value)
        }
        if let evicted {
            // Its connections already made stay open (AsyncHTTPClient's pool closes them when idle);
            // it takes no new ones.
            Task {
                try? await evicted.started.value.close()
                unlink(evicted.socketPath)
            }
        }
        do {
            return try await task.value
        } catch {
            relays.withLock { table in
                if table.entries[route]?.started == task { table.entries[route] = nil }
            }
            throw error
        }
    }

    /// How many relays are open or starting now (tests).
    var count: Int { relays.withLock { $0.entries.count } }

    /// Closes every relay and removes their sockets.
    func shutdown() {
        let started = relays.withLock { table in
            defer { table.entries.removeAll() }
            return table.entries.values.map(\.started)
        }
        let directory = directory
        Task {
            for task in started { try? await task.value.close() }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}
#endif

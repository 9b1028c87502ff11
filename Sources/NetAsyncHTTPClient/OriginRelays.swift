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
/// At most ``maximumRelays`` are kept open: each holds a listening socket and its file, and the
/// routes a transport meets are the servers' to choose (a redirect to a new port each time), so a
/// new route past the limit closes the least recently used relay that no request is using (from
/// ``relay(for:proxy:)`` to ``release(_:)``); while every one is in use the limit is passed for a
/// while rather than a request's relay closed under it. A relay that failed to start is not kept:
/// the next request to its route tries again.
final class OriginRelays: Sendable {
    /// The most relays open at once.
    static let maximumRelays = 64

    private struct Entry: Sendable {
        let started: Task<OriginRelay, any Error>
        let socketPath: String
        var lastUse: UInt64
        /// Requests between ``relay(for:proxy:)`` and ``release(_:)``: never closed while above 0.
        var leases: Int
    }

    private struct Table: Sendable {
        var entries: [RelayRoute: Entry] = [:]
        /// Counts uses, for least-recently-used order.
        var clock: UInt64 = 0
        /// Relays made so far: names each socket, never reused while an old one may be open.
        var made = 0

        /// Takes out least recently used relays no request is using until the limit holds (or
        /// only used ones are left).
        mutating func evictIdle() -> [Entry] {
            var evicted: [Entry] = []
            while entries.count > OriginRelays.maximumRelays,
                  let oldest = entries.filter({ $0.value.leases == 0 }).min(by: { $0.value.lastUse < $1.value.lastUse }) {
                entries[oldest.key] = nil
                evicted.append(oldest.value)
            }
            return evicted
        }
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
    /// by itself. A relay returned is leased: hand it to ``release(_:)`` once the request has its
    /// response head or has failed.
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
        let (task, evicted) = relays.withLock { table -> (Task<OriginRelay, any Error>, [Entry]) in
            table.clock += 1
            if let existing = table.entries[route] {
                table.entries[route]?.lastUse = table.clock
                table.entries[route]?.leases += 1
                return (existing.started, [])
            }
            table.made += 1
            let socketPath = "\(directory)/\(table.made).sock"
            let directory = directory, pins = pins, context = context, timeout = connectTimeout
            let started = Task {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                return try await OriginRelay.start(route: route, context: context, pins: pins, socketPath: socketPath, connectTimeout: timeout)
            }
            table.entries[route] = Entry(started: started, socketPath: socketPath, lastUse: table.clock, leases: 1)
            return (started, table.evictIdle())
        }
        Self.close(evicted)
        do {
            return try await task.value
        } catch {
            relays.withLock { table in
                if table.entries[route]?.started == task { table.entries[route] = nil }
            }
            throw error
        }
    }

    /// Ends the lease ``relay(for:proxy:)`` took, and closes relays past the limit that are now idle.
    func release(_ relay: OriginRelay) {
        let evicted = relays.withLock { table -> [Entry] in
            // The entry may be gone (failed) or a newer relay's: only this relay's lease ends.
            if table.entries[relay.route]?.socketPath == relay.socketPath { table.entries[relay.route]?.leases -= 1 }
            return table.evictIdle()
        }
        Self.close(evicted)
    }

    /// Closes evicted relays and removes their sockets. Connections they already made stay open
    /// (AsyncHTTPClient's pool closes them when idle); they take no new ones.
    private static func close(_ evicted: [Entry]) {
        guard !evicted.isEmpty else { return }
        Task {
            for entry in evicted {
                try? await entry.started.value.close()
                unlink(entry.socketPath)
            }
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

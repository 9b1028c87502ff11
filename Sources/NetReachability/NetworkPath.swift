#if os(Linux)
/// A snapshot of this machine's network path: what a stream element carries.
///
/// Immutable and `Sendable`; a new value arrives for every real change.
public struct NetworkPath: Sendable, Hashable, CustomStringConvertible {
    /// The kind of the preferred usable interface, or `.unavailable`.
    public let connection: NetworkReachability.Connection
    /// Usable interfaces, best first: up and running, not loopback, with a global address and a
    /// default route through them. Ordered by default-route metric, then by kind (Ethernet,
    /// Wi-Fi, other, cellular), then by index.
    public let interfaces: [NetworkInterface]
    /// The main table's default routes, lowest metric first.
    public let gateways: [NetworkGateway]

    /// Creates a path; normally the monitor makes them.
    public init(interfaces: [NetworkInterface], gateways: [NetworkGateway]) {
        self.interfaces = interfaces
        self.gateways = gateways
        connection = interfaces.first?.kind ?? .unavailable
    }

    /// Whether any interface can reach beyond this machine.
    public var isReachable: Bool { !interfaces.isEmpty }
    /// Whether the preferred interface is metered (cellular).
    public var isExpensive: Bool { interfaces.first?.isExpensive ?? false }
    /// Whether some interface has usable IPv4 (global address and default route).
    public var supportsIPv4: Bool { interfaces.contains { $0.supportsIPv4 } }
    /// Whether some interface has usable IPv6 (global address and default route).
    public var supportsIPv6: Bool { interfaces.contains { $0.supportsIPv6 } }

    /// `ethernet via eth0 (IPv4, IPv6)`, or `unavailable`.
    public var description: String {
        guard let first = interfaces.first else { return "unavailable" }
        let families = [supportsIPv4 ? "IPv4" : nil, supportsIPv6 ? "IPv6" : nil].compactMap { $0 }.joined(separator: ", ")
        return "\(connection.rawValue) via \(first.name) (\(families))"
    }
}

/// A usable network interface.
public struct NetworkInterface: Sendable, Hashable {
    /// The kernel's name, such as `eth0`.
    public let name: String
    /// The kernel's interface index.
    public let index: Int32
    /// What kind of link it is.
    public let kind: NetworkReachability.Connection
    /// Its global addresses (not link-local, not tentative), IPv4 first.
    public let addresses: [IPAddress]
    /// IPv4 is usable through it: a global IPv4 address and an IPv4 default route.
    public let supportsIPv4: Bool
    /// IPv6 is usable through it: a global IPv6 address and an IPv6 default route.
    public let supportsIPv6: Bool

    /// Creates an interface description.
    public init(name: String, index: Int32, kind: NetworkReachability.Connection, addresses: [IPAddress], supportsIPv4: Bool, supportsIPv6: Bool) {
        self.name = name
        self.index = index
        self.kind = kind
        self.addresses = addresses
        self.supportsIPv4 = supportsIPv4
        self.supportsIPv6 = supportsIPv6
    }

    /// Cellular links are metered.
    public var isExpensive: Bool { kind == .cellular }
}

/// A default route.
public struct NetworkGateway: Sendable, Hashable {
    /// The next hop, or `nil` for a route straight out of the interface (point-to-point links).
    public let address: IPAddress?
    /// The interface the route leaves through.
    public let interfaceName: String
    /// That interface's index.
    public let interfaceIndex: Int32
    /// IPv4 or IPv6.
    public let family: IPAddress.Family
    /// The route's metric; lower is preferred.
    public let metric: UInt32

    /// Creates a gateway description.
    public init(address: IPAddress?, interfaceName: String, interfaceIndex: Int32, family: IPAddress.Family, metric: UInt32) {
        self.address = address
        self.interfaceName = interfaceName
        self.interfaceIndex = interfaceIndex
        self.family = family
        self.metric = metric
    }
}
#endif

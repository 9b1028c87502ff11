#if os(Linux)
import CNetlink
import Glibc

/// Everything a full dump returned.
struct NetlinkSnapshot: Sendable, Hashable {
    var links: [NetlinkLink] = []
    var addresses: [NetlinkAddress] = []
    var routes: [NetlinkRoute] = []
}

/// Derives the path users see from a dump. Pure: the link kinds come from `kindOf`.
///
/// Reachable means: a non-loopback link that is up and running (`IFF_UP | IFF_RUNNING`, not the
/// route's LINKDOWN flag, which the kernel does not clear reliably), with a global address that is
/// not tentative or failed, and a main-table default route of the same family through that link.
enum PathDerivation {
    static func path(from snapshot: NetlinkSnapshot, kindOf: (NetlinkLink) -> NetworkReachability.Connection) -> NetworkPath {
        let running = CNL_IFF_UP | CNL_IFF_RUNNING
        let candidates = snapshot.links.filter { link in
            link.flags & running == running && link.flags & CNL_IFF_LOOPBACK == 0
                && link.hardwareType != CNL_ARPHRD_LOOPBACK
        }
        let candidateIndexes = Set(candidates.map(\.index))
        let names = Dictionary(snapshot.links.map { ($0.index, $0.name) }, uniquingKeysWith: { first, _ in first })

        let gateways = defaultRoutes(in: snapshot.routes)
            .filter { candidateIndexes.contains($0.interfaceIndex) }
            .map { route in
                NetworkGateway(
                    address: route.gateway, interfaceName: names[route.interfaceIndex] ?? "", interfaceIndex: route.interfaceIndex,
                    family: route.family, metric: route.metric)
            }

        let usableAddresses = snapshot.addresses.filter { address in
            address.scope == CNL_RT_SCOPE_UNIVERSE && address.flags & (CNL_IFA_F_TENTATIVE | CNL_IFA_F_DADFAILED) == 0
        }

        var ranked: [(interface: NetworkInterface, metric: UInt32)] = []
        for link in candidates {
            let addresses = usableAddresses.filter { $0.interfaceIndex == link.index }.map(\.address)
                .sorted { $0.family == .ipv4 && $1.family == .ipv6 }
            let routes = gateways.filter { $0.interfaceIndex == link.index }
            let supportsIPv4 = addresses.contains { $0.family == .ipv4 } && routes.contains { $0.family == .ipv4 }
            let supportsIPv6 = addresses.contains { $0.family == .ipv6 } && routes.contains { $0.family == .ipv6 }
            guard supportsIPv4 || supportsIPv6 else { continue }
            let interface = NetworkInterface(
                name: link.name, index: link.index, kind: kindOf(link), addresses: addresses,
                supportsIPv4: supportsIPv4, supportsIPv6: supportsIPv6)
            ranked.append((interface, routes.map(\.metric).min() ?? .max))
        }
        ranked.sort { lhs, rhs in
            if lhs.metric != rhs.metric { return lhs.metric < rhs.metric }
            let (left, right) = (preference(lhs.interface.kind), preference(rhs.interface.kind))
            if left != right { return left < right }
            return lhs.interface.index < rhs.interface.index
        }
        return NetworkPath(interfaces: ranked.map(\.interface), gateways: gateways)
    }

    private struct DefaultRoute {
        var family: IPAddress.Family
        var interfaceIndex: Int32
        var gateway: IPAddress?
        var metric: UInt32
    }

    /// Main-table unicast routes to 0.0.0.0/0 or ::/0, one per next hop, lowest metric first.
    private static func defaultRoutes(in routes: [NetlinkRoute]) -> [DefaultRoute] {
        var result: [DefaultRoute] = []
        for route in routes where route.table == UInt32(CNL_RT_TABLE_MAIN) && route.type == CNL_RTN_UNICAST && route.destinationPrefixLength == 0 {
            let family: IPAddress.Family
            switch Int32(route.family) {
            case AF_INET: family = .ipv4
            case AF_INET6: family = .ipv6
            default: continue
            }
            for hop in route.nextHops {
                result.append(DefaultRoute(family: family, interfaceIndex: hop.interfaceIndex, gateway: hop.gateway, metric: route.priority))
            }
        }
        return result.sorted { $0.metric < $1.metric }
    }

    private static func preference(_ kind: NetworkReachability.Connection) -> Int {
        switch kind {
        case .ethernet: 0
        case .wifi: 1
        case .other: 2
        case .cellular: 3
        case .unavailable: 4
        }
    }
}
#endif

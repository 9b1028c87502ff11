import CNetlink
import Glibc
@testable import NetReachability
import Testing

@Suite("Path derivation")
struct PathDerivationTests {
    static let v6Gateway: [UInt8] = [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [1]
    static func v6(_ last: UInt8) -> [UInt8] { [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [last] }

    private func derive(_ build: (inout NetlinkBuilder) -> Void, kinds: [String: NetworkReachability.Connection] = [:]) -> NetworkPath {
        var builder = NetlinkBuilder()
        build(&builder)
        var snapshot = NetlinkSnapshot()
        for message in NetlinkParser.parse(builder.bytes).messages {
            switch message {
            case .link(let link, _): snapshot.links.append(link)
            case .address(let address, _): snapshot.addresses.append(address)
            case .route(let route, _): snapshot.routes.append(route)
            default: break
            }
        }
        return PathDerivation.path(from: snapshot) { kinds[$0.name] ?? LinkClassifier(sysfsRoot: "/nonexistent").kind(of: $0) }
    }

    @Test("Loopback alone is unavailable, even with an address and a route")
    func loopbackOnly() {
        let path = derive { builder in
            builder.link(index: 1, name: "lo", flags: up | CNL_IFF_LOOPBACK, type: CNL_ARPHRD_LOOPBACK)
            builder.address(index: 1, [127, 0, 0, 1], prefix: 8, scope: 254)
            builder.defaultRoute(family: AF_INET, via: nil, index: 1)
        }
        #expect(path.connection == .unavailable && !path.isReachable && path.interfaces.isEmpty)
    }

    @Test("Reachable needs up and running, a global address and a default route through the link")
    func reachabilityRule() {
        let full: (inout NetlinkBuilder) -> Void = { builder in
            builder.link(index: 2, name: "eth0", flags: up)
            builder.address(index: 2, [192, 0, 2, 10], prefix: 24)
            builder.defaultRoute(family: AF_INET, via: [192, 0, 2, 1], index: 2)
        }
        let path = derive(full)
        #expect(path.connection == .ethernet && path.supportsIPv4 && !path.supportsIPv6 && !path.isExpensive)
        #expect(path.gateways.map { $0.address?.description } == ["192.0.2.1"])

        #expect(!derive { b in b.link(index: 2, name: "eth0", flags: CNL_IFF_UP); b.address(index: 2, [192, 0, 2, 10], prefix: 24); b.defaultRoute(family: AF_INET, via: [192, 0, 2, 1], index: 2) }.isReachable)
        #expect(!derive { b in b.link(index: 2, name: "eth0", flags: up); b.defaultRoute(family: AF_INET, via: [192, 0, 2, 1], index: 2) }.isReachable)
        #expect(!derive { b in b.link(index: 2, name: "eth0", flags: up); b.address(index: 2, [192, 0, 2, 10], prefix: 24) }.isReachable)
        // Link-local scope, a tentative (DAD) address, another table, or a route via another link do not count.
        #expect(!derive { b in b.link(index: 2, name: "eth0", flags: up); b.address(index: 2, Self.v6(1), prefix: 64, scope: 253); b.defaultRoute(family: AF_INET6, via: Self.v6Gateway, index: 2) }.isReachable)
        #expect(!derive { b in b.link(index: 2, name: "eth0", flags: up); b.address(index: 2, Self.v6(1), prefix: 64, flags: CNL_IFA_F_TENTATIVE); b.defaultRoute(family: AF_INET6, via: Self.v6Gateway, index: 2) }.isReachable)
        #expect(!derive { b in b.link(index: 2, name: "eth0", flags: up); b.address(index: 2, [192, 0, 2, 10], prefix: 24); b.defaultRoute(family: AF_INET, via: [192, 0, 2, 1], index: 2, table: 100) }.isReachable)
        #expect(!derive { b in b.link(index: 2, name: "eth0", flags: up); b.link(index: 3, name: "eth1", flags: up); b.address(index: 2, [192, 0, 2, 10], prefix: 24); b.defaultRoute(family: AF_INET, via: [192, 0, 2, 1], index: 3) }.isReachable)
        // An IPv6 address with only an IPv4 route: no family is usable.
        #expect(!derive { b in b.link(index: 2, name: "eth0", flags: up); b.address(index: 2, Self.v6(1), prefix: 64); b.defaultRoute(family: AF_INET, via: [192, 0, 2, 1], index: 2) }.isReachable)
    }

    @Test("Interfaces are ordered by metric, then Ethernet, Wi-Fi, other, cellular; cellular first is expensive")
    func ordering() {
        let kinds: [String: NetworkReachability.Connection] = ["wlan0": .wifi, "wwan0": .cellular, "eth0": .ethernet, "tun0": .other]
        let sameMetric = derive({ builder in
            for (index, name) in [(2, "wwan0"), (3, "tun0"), (4, "wlan0"), (5, "eth0")] {
                builder.link(index: Int32(index), name: name, flags: up)
                builder.address(index: Int32(index), [192, 0, 2, UInt8(index)], prefix: 24)
                builder.defaultRoute(family: AF_INET, via: [192, 0, 2, 1], index: Int32(index), metric: 100)
            }
        }, kinds: kinds)
        #expect(sameMetric.interfaces.map(\.name) == ["eth0", "wlan0", "tun0", "wwan0"])
        #expect(sameMetric.connection == .ethernet && !sameMetric.isExpensive)

        let cellularPreferred = derive({ builder in
            builder.link(index: 2, name: "wwan0", flags: up); builder.address(index: 2, [192, 0, 2, 2], prefix: 24)
            builder.defaultRoute(family: AF_INET, via: [192, 0, 2, 1], index: 2, metric: 10)
            builder.link(index: 3, name: "wlan0", flags: up); builder.address(index: 3, [192, 0, 2, 3], prefix: 24)
            builder.defaultRoute(family: AF_INET, via: [192, 0, 2, 1], index: 3, metric: 600)
        }, kinds: kinds)
        #expect(cellularPreferred.interfaces.map(\.name) == ["wwan0", "wlan0"])
        #expect(cellularPreferred.connection == .cellular && cellularPreferred.isExpensive)
        #expect(cellularPreferred.gateways.map(\.metric) == [10, 600])
    }

    @Test("A multipath default route makes every next hop's link usable")
    func multipath() {
        let path = derive { builder in
            builder.link(index: 2, name: "eth0", flags: up); builder.address(index: 2, Self.v6(2), prefix: 64)
            builder.link(index: 3, name: "eth1", flags: up); builder.address(index: 3, Self.v6(3), prefix: 64)
            builder.defaultRoute(family: AF_INET6, via: nil, index: nil, multipath: [(2, Self.v6Gateway), (3, Self.v6Gateway)])
        }
        #expect(path.interfaces.map(\.name) == ["eth0", "eth1"] && path.supportsIPv6 && !path.supportsIPv4)
    }

    @Test("Virtual links are .other; plain Ethernet hardware without sysfs facts is .ethernet")
    func classification() {
        let classifier = LinkClassifier(sysfsRoot: "/nonexistent")
        #expect(classifier.kind(of: NetlinkLink(index: 5, name: "veth0", flags: up, hardwareType: CNL_ARPHRD_ETHER, kind: "veth")) == .other)
        #expect(classifier.kind(of: NetlinkLink(index: 5, name: "br0", flags: up, hardwareType: CNL_ARPHRD_ETHER, kind: "bridge")) == .other)
        #expect(classifier.kind(of: NetlinkLink(index: 5, name: "eno1", flags: up, hardwareType: CNL_ARPHRD_ETHER, kind: nil)) == .ethernet)
        #expect(classifier.kind(of: NetlinkLink(index: 5, name: "ppp0", flags: up, hardwareType: 512, kind: nil)) == .other)
    }
}

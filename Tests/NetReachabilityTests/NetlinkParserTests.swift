import CNetlink
import Glibc
@testable import NetReachability
import NetTestSupport
import Testing

@Suite("Netlink parser")
struct NetlinkParserTests {
    static var sample: [UInt8] {
        var builder = NetlinkBuilder()
        builder.link(index: 1, name: "lo", flags: up | CNL_IFF_LOOPBACK, type: CNL_ARPHRD_LOOPBACK)
        builder.link(index: 2, name: "eth0", flags: up)
        builder.link(index: 3, name: "wg0", flags: up, type: 65534, kind: "wireguard")
        builder.address(index: 2, [192, 0, 2, 10], prefix: 24)
        builder.address(index: 2, [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1], prefix: 64)
        builder.defaultRoute(family: AF_INET, via: [192, 0, 2, 1], index: 2, metric: 100)
        builder.defaultRoute(family: AF_INET6, via: nil, index: nil, multipath: [(2, [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [1]), (3, [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [2])])
        builder.done()
        return builder.bytes
    }

    @Test("A dump the kernel could not finish ends with its errno, and a 32-bit attribute shorter than 4 bytes is not read from the next one")
    func failedDumpAndShortAttributes() throws {
        var failed = NetlinkBuilder()
        failed.done(code: -EMSGSIZE)
        #expect(NetlinkParser.parse(failed.bytes).messages == [.done(code: -EMSGSIZE)])

        // RTA_OIF with no value, followed by RTA_PRIORITY 7: the index is absent, not 7's header.
        var route = NetlinkBuilder()
        var payload: [UInt8] = [UInt8(AF_INET), 0, 0, 0, CNL_RT_TABLE_MAIN, 3, 0, CNL_RTN_UNICAST] + NetlinkBuilder.le(UInt32(0))
        payload += NetlinkBuilder.attribute(CNL_RTA_OIF, []) + NetlinkBuilder.attribute(CNL_RTA_PRIORITY, NetlinkBuilder.le(UInt32(7)))
        route.message(type: CNL_RTM_NEWROUTE, payload: payload)
        guard case .route(let parsed, false)? = NetlinkParser.parse(route.bytes).messages.first else {
            Issue.record("no route parsed")
            return
        }
        #expect(parsed.nextHops.isEmpty && parsed.priority == 7)
    }

    @Test("Links, addresses, routes (with multipath) and the end of a dump")
    func wellFormed() throws {
        let result = NetlinkParser.parse(Self.sample)
        #expect(!result.isMalformed)
        #expect(result.messages.count == 8)
        guard case .link(let loopback, false) = result.messages[0], case .link(let ethernet, false) = result.messages[1],
            case .link(let wireguard, false) = result.messages[2]
        else { Issue.record("links missing: \(result.messages)"); return }
        #expect(loopback.name == "lo" && loopback.hardwareType == CNL_ARPHRD_LOOPBACK)
        #expect(ethernet == NetlinkLink(index: 2, name: "eth0", flags: up, hardwareType: CNL_ARPHRD_ETHER, kind: nil))
        #expect(wireguard.kind == "wireguard")
        guard case .address(let v4, false) = result.messages[3], case .address(let v6, false) = result.messages[4] else {
            Issue.record("addresses missing"); return
        }
        #expect(v4.address.description == "192.0.2.10" && v4.prefixLength == 24 && v4.interfaceIndex == 2)
        #expect(v6.address.description == "2001:db8::1")
        guard case .route(let route4, false) = result.messages[5], case .route(let route6, false) = result.messages[6] else {
            Issue.record("routes missing"); return
        }
        #expect(route4.priority == 100 && route4.table == 254 && route4.nextHops.map(\.interfaceIndex) == [2])
        #expect(route4.nextHops.first?.gateway?.description == "192.0.2.1")
        #expect(route6.nextHops.map(\.interfaceIndex) == [2, 3])
        #expect(route6.nextHops.map { $0.gateway?.description } == ["fe80::1", "fe80::2"])
        #expect(result.messages[7] == .done(code: 0))
    }

    @Test("Every truncation of a dump parses without crashing and reports the damage")
    func truncated() {
        let sample = Self.sample
        for length in 0..<sample.count {
            let result = NetlinkParser.parse(Array(sample.prefix(length)))
            #expect(result.messages.count <= 8)
            if length > 0 && !result.messages.contains(.done(code: 0)) {
                // A cut inside a message header or body is malformed; a cut between messages is not.
                let parsedBytes = result.isMalformed ? -1 : length
                #expect(result.isMalformed || parsedBytes == length)
            }
        }
        #expect(NetlinkParser.parse(Array(sample.prefix(10))).isMalformed)
    }

    @Test("Misaligned input (shifted by 1 to 3 bytes) never crashes")
    func misaligned() {
        for shift in 1...3 {
            let shifted = [UInt8](repeating: 0xAB, count: shift) + Self.sample
            let result = NetlinkParser.parse(shifted)
            #expect(result.isMalformed || result.messages.allSatisfy { if case .ignored = $0 { true } else { false } })
            let dropped = Array(Self.sample.dropFirst(shift))
            _ = NetlinkParser.parse(dropped)
        }
    }

    @Test("Random bytes and random mutations of real messages never crash the parser")
    func random() async {
        let sample = Self.sample
        // 40,000 parses: CPU for seconds in a debug build, so off the cooperative pool.
        let parsed = await offPool {
            var generator = SystemRandomNumberGenerator()
            var parsed = 0
            for _ in 0..<20_000 {
                let length = Int.random(in: 0...256, using: &generator)
                parsed += NetlinkParser.parse((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }).messages.count
            }
            for _ in 0..<20_000 {
                var mutated = sample
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                parsed += NetlinkParser.parse(mutated).messages.count
            }
            return parsed
        }
        #expect(parsed > 0)
    }

    @Test("An error message too short for its code is not read into the next message (found by FuzzNetlink)")
    func shortErrorMessage() {
        func header(length: UInt32, type: UInt16) -> [UInt8] {
            NetlinkBuilder.le(length) + NetlinkBuilder.le(type) + [0, 0] + [UInt8](repeating: 0, count: 8)
        }
        let short = header(length: 17, type: 2) + [0x00, 0, 0, 0]  // one payload byte, then padding
        let full = header(length: 20, type: 2) + NetlinkBuilder.le(Int32(43))
        let result = NetlinkParser.parse(short + full)
        #expect(result.messages == [.ignored(type: 2), .error(code: 43)])
        #expect(!result.isMalformed)
    }

    @Test("Attribute and message lengths that lie are contained")
    func lyingLengths() {
        var builder = NetlinkBuilder()
        // A link whose IFLA_IFNAME claims 200 bytes inside a 40-byte message.
        let payload: [UInt8] = [0, 0] + NetlinkBuilder.le(UInt16(1)) + NetlinkBuilder.le(Int32(9)) + NetlinkBuilder.le(up) + NetlinkBuilder.le(UInt32(0))
            + NetlinkBuilder.le(UInt16(200)) + NetlinkBuilder.le(CNL_IFLA_IFNAME) + Array("eth9".utf8)
        builder.message(type: CNL_RTM_NEWLINK, payload: payload)
        let result = NetlinkParser.parse(builder.bytes)
        guard case .link(let link, _) = result.messages.first else { Issue.record("the fixed header is valid"); return }
        #expect(link.index == 9 && link.name == "")
        // A message length of 0 or past the end stops parsing.
        #expect(NetlinkParser.parse(NetlinkBuilder.le(UInt32(0)) + [UInt8](repeating: 0, count: 12)).isMalformed)
        #expect(NetlinkParser.parse(NetlinkBuilder.le(UInt32(1000)) + [UInt8](repeating: 0, count: 12)).isMalformed)
        // A known type with a short fixed header is ignored, not misread.
        var short = NetlinkBuilder()
        short.message(type: CNL_RTM_NEWROUTE, payload: [2, 0, 0])
        #expect(NetlinkParser.parse(short.bytes).messages == [.ignored(type: CNL_RTM_NEWROUTE)])
    }
}

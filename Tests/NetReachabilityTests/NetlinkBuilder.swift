import CNetlink
import Glibc
@testable import NetReachability

/// Builds rtnetlink messages byte by byte, as the kernel lays them out, for parser tests.
struct NetlinkBuilder {
    private(set) var bytes: [UInt8] = []

    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var bytes = le(UInt16(4 + value.count)) + le(type) + value
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    static func string(_ type: UInt16, _ value: String) -> [UInt8] { attribute(type, Array(value.utf8) + [0]) }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    mutating func message(type: UInt16, flags: UInt16 = 0, payload: [UInt8]) {
        bytes += Self.le(UInt32(16 + payload.count)) + Self.le(type) + Self.le(flags) + Self.le(UInt32(1)) + Self.le(UInt32(0))
        bytes += payload
        while bytes.count % 4 != 0 { bytes.append(0) }
    }

    mutating func link(index: Int32, name: String, flags: UInt32, type: UInt16 = CNL_ARPHRD_ETHER, kind: String? = nil, deleted: Bool = false) {
        var payload: [UInt8] = [UInt8(AF_UNSPEC), 0] + Self.le(type) + Self.le(index) + Self.le(flags) + Self.le(UInt32(0))
        payload += Self.string(CNL_IFLA_IFNAME, name)
        if let kind { payload += Self.attribute(CNL_IFLA_LINKINFO | 0x8000, Self.string(CNL_IFLA_INFO_KIND, kind)) }
        message(type: deleted ? CNL_RTM_DELLINK : CNL_RTM_NEWLINK, payload: payload)
    }

    mutating func address(index: Int32, _ address: [UInt8], prefix: UInt8, scope: UInt8 = 0, flags: UInt32 = 0) {
        let family = UInt8(address.count == 4 ? AF_INET : AF_INET6)
        var payload: [UInt8] = [family, prefix, UInt8(truncatingIfNeeded: flags), scope] + Self.le(UInt32(bitPattern: index))
        payload += Self.attribute(CNL_IFA_ADDRESS, address) + Self.attribute(CNL_IFA_FLAGS, Self.le(flags))
        message(type: CNL_RTM_NEWADDR, payload: payload)
    }

    mutating func defaultRoute(family: Int32, via gateway: [UInt8]?, index: Int32?, metric: UInt32 = 0, table: UInt8 = CNL_RT_TABLE_MAIN, multipath: [(Int32, [UInt8])] = []) {
        var payload: [UInt8] = [UInt8(family), 0, 0, 0, table, 3, 0, CNL_RTN_UNICAST] + Self.le(UInt32(0))
        payload += Self.attribute(CNL_RTA_TABLE, Self.le(UInt32(table))) + Self.attribute(CNL_RTA_PRIORITY, Self.le(metric))
        if let index { payload += Self.attribute(CNL_RTA_OIF, Self.le(index)) }
        if let gateway { payload += Self.attribute(CNL_RTA_GATEWAY, gateway) }
        if !multipath.isEmpty {
            var hops: [UInt8] = []
            for (hopIndex, hopGateway) in multipath {
                let attribute = Self.attribute(CNL_RTA_GATEWAY, hopGateway)
                hops += Self.le(UInt16(8 + attribute.count)) + [0, 0] + Self.le(hopIndex) + attribute
            }
            payload += Self.attribute(CNL_RTA_MULTIPATH, hops)
        }
        message(type: CNL_RTM_NEWROUTE, payload: payload)
    }

    /// The end of a dump, with its outcome (a negative errno when the kernel could not finish it).
    mutating func done(code: Int32 = 0) { message(type: CNL_NLMSG_DONE, payload: Self.le(code)) }
}

let up: UInt32 = CNL_IFF_UP | CNL_IFF_RUNNING

#if os(Linux)
import CNetlink

/// Parses rtnetlink datagrams. A pure function over bytes: every read is bounds-checked, so
/// truncated, misaligned or random input yields fewer messages and `isMalformed`, never a crash.
enum NetlinkParser {
    static func parse(_ bytes: [UInt8]) -> NetlinkParseResult {
        var result = NetlinkParseResult()
        let reader = ByteReader(bytes)
        var offset = 0
        let headerSize = Int(CNL_SIZEOF_NLMSGHDR)
        while offset < bytes.count {
            guard let length = reader.u32(offset).map(Int.init), length >= headerSize,
                length <= bytes.count - offset,
                let type = reader.u16(offset + 4), let flags = reader.u16(offset + 6)
            else {
                result.isMalformed = true
                break
            }
            if flags & CNL_NLM_F_DUMP_INTR != 0 { result.dumpInterrupted = true }
            let payload = (offset + headerSize)..<(offset + length)
            result.messages.append(message(type: type, payload: payload, reader: reader))
            offset += align4(length)
        }
        return result
    }

    private static func message(type: UInt16, payload: Range<Int>, reader: ByteReader) -> NetlinkMessage {
        switch type {
        case CNL_NLMSG_DONE:
            // The kernel writes the dump's outcome after the header (iproute2 checks it too); an
            // older kernel's DONE without it ended well.
            guard payload.count >= 4 else { return .done(code: 0) }
            return .done(code: reader.i32(payload.lowerBound) ?? 0)
        case CNL_NLMSG_ERROR:
            // The code must lie inside this message: a short one is not read into the next
            // (found by FuzzNetlink's independent framing reader).
            guard payload.count >= 4 else { return .ignored(type: type) }
            return reader.i32(payload.lowerBound).map { .error(code: $0) } ?? .ignored(type: type)
        case CNL_RTM_NEWLINK, CNL_RTM_DELLINK:
            return link(payload, reader).map { .link($0, deleted: type == CNL_RTM_DELLINK) } ?? .ignored(type: type)
        case CNL_RTM_NEWADDR, CNL_RTM_DELADDR:
            return address(payload, reader).map { .address($0, deleted: type == CNL_RTM_DELADDR) } ?? .ignored(type: type)
        case CNL_RTM_NEWROUTE, CNL_RTM_DELROUTE:
            return route(payload, reader).map { .route($0, deleted: type == CNL_RTM_DELROUTE) } ?? .ignored(type: type)
        default: return .ignored(type: type)
        }
    }

    /// `struct ifinfomsg` then `IFLA_*` attributes.
    private static func link(_ payload: Range<Int>, _ reader: ByteReader) -> NetlinkLink? {
        let start = payload.lowerBound
        guard payload.count >= Int(CNL_SIZEOF_IFINFOMSG), let hardwareType = reader.u16(start + 2),
            let index = reader.i32(start + 4), let flags = reader.u32(start + 8)
        else { return nil }
        var link = NetlinkLink(index: index, name: "", flags: flags, hardwareType: hardwareType, kind: nil)
        for attribute in attributes(in: (start + Int(CNL_SIZEOF_IFINFOMSG))..<payload.upperBound, reader) {
            switch attribute.type {
            case CNL_IFLA_IFNAME: link.name = reader.cString(attribute.value)
            case CNL_IFLA_LINKINFO:
                for info in attributes(in: attribute.value, reader) where info.type == CNL_IFLA_INFO_KIND {
                    link.kind = reader.cString(info.value)
                }
            default: break
            }
        }
        return link
    }

    /// `struct ifaddrmsg` then `IFA_*` attributes. `IFA_LOCAL` wins over `IFA_ADDRESS`: on
    /// point-to-point links the latter is the peer's address.
    private static func address(_ payload: Range<Int>, _ reader: ByteReader) -> NetlinkAddress? {
        let start = payload.lowerBound
        guard payload.count >= Int(CNL_SIZEOF_IFADDRMSG), let family = reader.u8(start), let prefixLength = reader.u8(start + 1),
            let shortFlags = reader.u8(start + 2), let scope = reader.u8(start + 3), let index = reader.u32(start + 4)
        else { return nil }
        var local: IPAddress?
        var address: IPAddress?
        var flags = UInt32(shortFlags)
        for attribute in attributes(in: (start + Int(CNL_SIZEOF_IFADDRMSG))..<payload.upperBound, reader) {
            switch attribute.type {
            case CNL_IFA_LOCAL: local = IPAddress(family: family, bytes: reader.bytes(attribute.value))
            case CNL_IFA_ADDRESS: address = IPAddress(family: family, bytes: reader.bytes(attribute.value))
            case CNL_IFA_FLAGS: flags = u32(attribute.value, reader) ?? flags
            default: break
            }
        }
        guard let chosen = local ?? address else { return nil }
        return NetlinkAddress(interfaceIndex: Int32(bitPattern: index), address: chosen, prefixLength: prefixLength, scope: scope, flags: flags)
    }

    /// A 32-bit attribute's value: `nil` when the attribute is shorter, rather than bytes read
    /// from whatever follows it.
    private static func u32(_ value: Range<Int>, _ reader: ByteReader) -> UInt32? {
        value.count >= 4 ? reader.u32(value.lowerBound) : nil
    }

    /// `struct rtmsg` then `RTA_*` attributes; `RTA_MULTIPATH` holds `struct rtnexthop`s, each
    /// followed by its own attributes.
    private static func route(_ payload: Range<Int>, _ reader: ByteReader) -> NetlinkRoute? {
        let start = payload.lowerBound
        guard payload.count >= Int(CNL_SIZEOF_RTMSG), let family = reader.u8(start), let destinationLength = reader.u8(start + 1),
            let table = reader.u8(start + 4), let type = reader.u8(start + 7)
        else { return nil }
        var route = NetlinkRoute(family: family, destinationPrefixLength: destinationLength, table: UInt32(table), type: type, priority: 0, nextHops: [])
        var interfaceIndex: Int32?
        var gateway: IPAddress?
        for attribute in attributes(in: (start + Int(CNL_SIZEOF_RTMSG))..<payload.upperBound, reader) {
            switch attribute.type {
            case CNL_RTA_TABLE: route.table = u32(attribute.value, reader) ?? route.table
            case CNL_RTA_OIF: interfaceIndex = u32(attribute.value, reader).map { Int32(bitPattern: $0) }
            case CNL_RTA_GATEWAY: gateway = IPAddress(family: family, bytes: reader.bytes(attribute.value))
            case CNL_RTA_PRIORITY: route.priority = u32(attribute.value, reader) ?? 0
            case CNL_RTA_MULTIPATH: route.nextHops += nextHops(in: attribute.value, family: family, reader)
            default: break
            }
        }
        if let interfaceIndex { route.nextHops.insert(.init(interfaceIndex: interfaceIndex, gateway: gateway), at: 0) }
        return route
    }

    private static func nextHops(in range: Range<Int>, family: UInt8, _ reader: ByteReader) -> [NetlinkRoute.NextHop] {
        var hops: [NetlinkRoute.NextHop] = []
        var offset = range.lowerBound
        let headerSize = Int(CNL_SIZEOF_RTNEXTHOP)
        while offset + headerSize <= range.upperBound, let length = reader.u16(offset).map(Int.init),
            length >= headerSize, length <= range.upperBound - offset, let index = reader.i32(offset + 4)
        {
            let gateway = attributes(in: (offset + headerSize)..<(offset + length), reader)
                .first { $0.type == CNL_RTA_GATEWAY }
                .flatMap { IPAddress(family: family, bytes: reader.bytes($0.value)) }
            hops.append(.init(interfaceIndex: index, gateway: gateway))
            offset += align4(length)
        }
        return hops
    }

    /// The `struct rtattr` list in `range`; stops at the first attribute that does not fit.
    private static func attributes(in range: Range<Int>, _ reader: ByteReader) -> [(type: UInt16, value: Range<Int>)] {
        var result: [(type: UInt16, value: Range<Int>)] = []
        var offset = range.lowerBound
        let headerSize = Int(CNL_SIZEOF_RTATTR)
        while offset + headerSize <= range.upperBound, let length = reader.u16(offset).map(Int.init),
            length >= headerSize, length <= range.upperBound - offset, let type = reader.u16(offset + 2)
        {
            result.append((type & CNL_NLA_TYPE_MASK, (offset + headerSize)..<(offset + length)))
            offset += align4(length)
        }
        return result
    }

    static func align4(_ length: Int) -> Int { (length + 3) & ~3 }
}

/// Bounds-checked reads in host byte order, which is netlink's.
struct ByteReader {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T? {
        guard offset >= 0, offset <= bytes.count - MemoryLayout<T>.size else { return nil }
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    func u8(_ offset: Int) -> UInt8? { load(offset, as: UInt8.self) }
    func u16(_ offset: Int) -> UInt16? { load(offset, as: UInt16.self) }
    func u32(_ offset: Int) -> UInt32? { load(offset, as: UInt32.self) }
    func i32(_ offset: Int) -> Int32? { load(offset, as: Int32.self) }

    func bytes(_ range: Range<Int>) -> [UInt8] {
        let clamped = range.clamped(to: 0..<bytes.count)
        return Array(bytes[clamped])
    }

    /// A NUL-terminated string attribute; invalid UTF-8 is replaced rather than trusted.
    func cString(_ range: Range<Int>) -> String {
        let raw = bytes(range)
        return String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}
#endif

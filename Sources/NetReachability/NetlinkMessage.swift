#if os(Linux)
/// A link (interface) as rtnetlink describes it.
struct NetlinkLink: Sendable, Hashable {
    var index: Int32
    var name: String
    var flags: UInt32
    /// `ARPHRD_*`: 1 Ethernet (and Wi-Fi), 772 loopback, …
    var hardwareType: UInt16
    /// `IFLA_INFO_KIND` for virtual links: "veth", "bridge", "wireguard", "tun", …
    var kind: String?
}

/// An address assigned to a link.
struct NetlinkAddress: Sendable, Hashable {
    var interfaceIndex: Int32
    var address: IPAddress
    var prefixLength: UInt8
    var scope: UInt8
    var flags: UInt32
}

/// A route, with its next hops (one, or several for a multipath route).
struct NetlinkRoute: Sendable, Hashable {
    struct NextHop: Sendable, Hashable {
        var interfaceIndex: Int32
        var gateway: IPAddress?
    }

    var family: UInt8
    var destinationPrefixLength: UInt8
    var table: UInt32
    var type: UInt8
    var priority: UInt32
    var nextHops: [NextHop]
}

/// One message of a netlink datagram.
enum NetlinkMessage: Sendable, Hashable {
    case link(NetlinkLink, deleted: Bool)
    case address(NetlinkAddress, deleted: Bool)
    case route(NetlinkRoute, deleted: Bool)
    /// The end of a dump, with the dump's outcome: `0`, or a negative errno when the kernel
    /// could not finish it (`-EMSGSIZE`: an object larger than its dump buffer), which makes
    /// what came before it partial.
    case done(code: Int32)
    /// An acknowledgement (`0`) or an error (a negative errno) for a request.
    case error(code: Int32)
    /// A message type NetReachability does not use, or a known type whose fixed header is too short.
    case ignored(type: UInt16)
}

/// What a datagram held: its messages, their header flags, and whether it ended in malformed bytes.
struct NetlinkParseResult: Sendable, Hashable {
    var messages: [NetlinkMessage] = []
    /// `NLM_F_DUMP_INTR` was set on a message: the dump raced a change and must be redone.
    var dumpInterrupted = false
    /// Bytes that could not be parsed followed the last good message.
    var isMalformed = false
}
#endif

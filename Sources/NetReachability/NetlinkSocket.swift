#if os(Linux)
import CNetlink
import Glibc

/// rtnetlink sockets: one subscribed to change events, one for full dumps (never subscribed, so a
/// dump can never be interleaved with events or overflow).
enum NetlinkSocket {
    static let eventGroups = CNL_RTMGRP_LINK | CNL_RTMGRP_IPV4_IFADDR | CNL_RTMGRP_IPV6_IFADDR
        | CNL_RTMGRP_IPV4_ROUTE | CNL_RTMGRP_IPV6_ROUTE
    /// Holds well over a hundred link flaps before the kernel reports ENOBUFS (then we resync).
    static let eventReceiveBuffer: Int32 = 1 << 20

    /// Opens and binds a `NETLINK_ROUTE` socket; `groups` 0 for a dump socket. An event socket
    /// asks for `receiveBuffer` bytes of queue.
    static func open(groups: UInt32, receiveBuffer: Int32 = eventReceiveBuffer) throws -> Int32 {
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), CNL_NETLINK_ROUTE)
        guard descriptor >= 0 else { throw ReachabilityError.systemCall("socket(AF_NETLINK)", errno: errno) }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = groups
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw ReachabilityError.systemCall("bind(AF_NETLINK)", errno: code)
        }
        if groups != 0 {
            var size = receiveBuffer
            // SO_RCVBUFFORCE passes the rmem_max cap when privileged; otherwise take what we may.
            if setsockopt(descriptor, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
                _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
        }
        return descriptor
    }

    /// Dumps links, addresses and routes. Redone (a few times at most) when the kernel flags the
    /// dump as interrupted by a concurrent change.
    static func snapshot(_ descriptor: Int32) throws -> NetlinkSnapshot {
        var attempt = 0
        while true {
            attempt += 1
            var interrupted = false
            var failure: Int32?
            var snapshot = NetlinkSnapshot()
            for (type, headerSize) in [(CNL_RTM_GETLINK, CNL_SIZEOF_IFINFOMSG), (CNL_RTM_GETADDR, CNL_SIZEOF_IFADDRMSG), (CNL_RTM_GETROUTE, CNL_SIZEOF_RTMSG)] {
                for message in try dump(descriptor, type: type, familyHeaderSize: Int(headerSize), interrupted: &interrupted, failure: &failure) {
                    switch message {
                    case .link(let link, false): snapshot.links.append(link)
                    case .address(let address, false): snapshot.addresses.append(address)
                    case .route(let route, false): snapshot.routes.append(route)
                    default: break
                    }
                }
            }
            switch verdict(attempt: attempt, interrupted: interrupted, failure: failure) {
            case .accept: return snapshot
            case .readAgain: continue
            case .fail(let error): throw error
            }
        }
    }

    /// The most dumps read for one snapshot.
    static let dumpAttempts = 5

    enum DumpVerdict: Equatable {
        case accept, readAgain
        case fail(ReachabilityError)
    }

    /// What to do with the `attempt`th dump (from 1): a dump the kernel could not finish
    /// (`failure`, its negative errno) is partial and is read again, as an interrupted one is; one
    /// that fails every time (an object too large for its buffer) is an error. An interrupted one
    /// is taken as it is at the last attempt: a table changing without pause still has a state.
    static func verdict(attempt: Int, interrupted: Bool, failure: Int32?) -> DumpVerdict {
        // Wrapping: a kernel never sends Int32.min, and a reply that did must not trap.
        if let failure { return attempt >= dumpAttempts ? .fail(.kernel(errno: 0 &- failure)) : .readAgain }
        return interrupted && attempt < dumpAttempts ? .readAgain : .accept
    }

    private static func dump(_ descriptor: Int32, type: UInt16, familyHeaderSize: Int, interrupted: inout Bool,
                             failure: inout Int32?) throws -> [NetlinkMessage] {
        try send(request(type: type, familyHeaderSize: familyHeaderSize), to: descriptor)
        var messages: [NetlinkMessage] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 {
                if errno == EINTR { continue }
                throw ReachabilityError.systemCall("recv(AF_NETLINK)", errno: errno)
            }
            let result = NetlinkParser.parse(Array(buffer.prefix(count)))
            if result.isMalformed { throw ReachabilityError.malformedReply }
            interrupted = interrupted || result.dumpInterrupted
            for message in result.messages {
                switch message {
                case .done(let code):
                    if code < 0 { failure = code }  // what came before it is partial
                    return messages
                case .error(let code) where code != 0: throw ReachabilityError.kernel(errno: 0 &- code)  // wrapping, as in `verdict`
                default: messages.append(message)
                }
            }
        }
    }

    /// A dump request: `nlmsghdr` then a zeroed family header (`AF_UNSPEC`: every family).
    private static func request(type: UInt16, familyHeaderSize: Int) -> [UInt8] {
        let length = Int(CNL_SIZEOF_NLMSGHDR) + familyHeaderSize
        var bytes = [UInt8](repeating: 0, count: length)
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(length), toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: type, toByteOffset: 4, as: UInt16.self)
            raw.storeBytes(of: CNL_NLM_F_REQUEST | CNL_NLM_F_DUMP, toByteOffset: 6, as: UInt16.self)
        }
        return bytes
    }

    private static func send(_ bytes: [UInt8], to descriptor: Int32) throws {
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        while true {
            let sent = withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
            if sent == bytes.count { return }
            if sent < 0 && errno == EINTR { continue }
            throw ReachabilityError.systemCall("sendto(AF_NETLINK)", errno: sent < 0 ? errno : EIO)
        }
    }

    enum DrainResult { case nothing, changed }

    /// Reads every pending event without blocking. Events are only hints (the kernel omits some
    /// changes), so their content is not needed: any event, or an overflow, means "re-dump".
    static func drainEvents(_ descriptor: Int32) throws -> DrainResult {
        var result = DrainResult.nothing
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { result = .changed; continue }
            if count == 0 { return result }
            let code = errno
            switch afterReadError(code) {
            case .readAgain: continue
            case .drained: return result
            case .overflowed: result = .changed
            case .failed: throw ReachabilityError.systemCall("recv(AF_NETLINK)", errno: code)
            }
        }
    }

    enum ReadErrorAction: Equatable { case readAgain, drained, overflowed, failed }

    /// What a failed read of the event socket means: interrupted (read again), nothing left, the
    /// kernel dropped events for want of room (ENOBUFS: the events are lost, so the state must be
    /// re-read, as after any event), or a real failure.
    static func afterReadError(_ code: Int32) -> ReadErrorAction {
        switch code {
        case EINTR: .readAgain
        case EAGAIN, EWOULDBLOCK: .drained
        case ENOBUFS: .overflowed
        default: .failed
        }
    }
}
#endif

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NetTestSupport
import Testing

/// This process's TCP sockets that a server reset (a reset ends a connection at once) while a
/// descriptor still holds them. The kernel drops such a socket from `/proc/net/tcp`, so the
/// CLOSE_WAIT scan of ``ClientSockets`` cannot see a transport that keeps a reset connection's
/// descriptor: this asks each descriptor for its TCP state and its local port instead, and counts
/// only those bound to a port `FaultServer` reset, so another suite's sockets running beside the
/// fault suite are not blamed. The ports are the whole run's: a leak by one transport's fault
/// suite can fail the other's check, still a real leak, named by its port in the message.
enum ResetSockets {
    /// The descriptors of this process's IPv4 and IPv6 stream sockets in TCP's CLOSE state whose
    /// local port is among `ports`, with those ports.
    static func descriptors(boundTo ports: Set<UInt16>) -> [Int32: UInt16] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
            Issue.record("/proc/self/fd cannot be listed: no socket of this process can be seen")
            return [:]
        }
        var found: [Int32: UInt16] = [:]
        for descriptor in entries.compactMap(Int32.init) where isClosedTCPSocket(descriptor) {
            // A reset leaves the socket its own port.
            if let port = socketPort(descriptor), ports.contains(port) { found[descriptor] = port }
        }
        return found
    }

    /// Waits (bounded, for a hang) until no socket the fault server reset is still held: one a
    /// transport forgot stays.
    static func expectNone() async {
        let none = await eventually(within: TestTiming.hangGuard, every: .milliseconds(50)) {
            await offPool { descriptors(boundTo: FaultServer.shared.resetClientPorts).isEmpty }
        }
        #expect(none, "reset connections still held (descriptor: local port): \(descriptors(boundTo: FaultServer.shared.resetClientPorts))")
    }

    private static func isClosedTCPSocket(_ descriptor: Int32) -> Bool {
        guard option(descriptor, SOL_SOCKET, SO_TYPE) == Int32(SOCK_STREAM.rawValue),
              let domain = option(descriptor, SOL_SOCKET, SO_DOMAIN), domain == AF_INET || domain == AF_INET6 else { return false }
        // `struct tcp_info` starts with the state, one byte; the kernel copies as much as asked.
        var info = [UInt8](repeating: 0xFF, count: 8)
        var length = socklen_t(info.count)
        guard getsockopt(descriptor, Int32(IPPROTO_TCP), tcpInfo, &info, &length) == 0, length >= 1 else { return false }
        return info[0] == tcpClose
    }

    private static func option(_ descriptor: Int32, _ level: Int32, _ name: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, level, name, &value, &length) == 0 ? value : nil
    }

    /// `TCP_INFO` and `TCP_CLOSE` from linux/tcp.h and net/tcp_states.h, which Glibc's module
    /// does not carry.
    private static let tcpInfo: Int32 = 11
    private static let tcpClose: UInt8 = 7
}

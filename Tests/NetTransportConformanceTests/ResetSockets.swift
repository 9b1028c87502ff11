import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NetTestSupport
import Testing

/// This process's TCP sockets that the kernel has closed (a reset ends a connection at once) while
/// a descriptor still holds them. The kernel drops such a socket from `/proc/net/tcp`, so the
/// CLOSE_WAIT scan of ``ClientSockets`` cannot see a transport that keeps a reset connection's
/// descriptor: this asks each descriptor for its TCP state instead.
///
/// A socket made and not yet connected (or bound and not yet listening) is in the same state for
/// a moment: the checks wait, bounded, for a look at which none is left.
enum ResetSockets {
    /// The descriptors of this process's IPv4 and IPv6 stream sockets in TCP's CLOSE state.
    static func descriptors() -> Set<Int32> {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
            Issue.record("/proc/self/fd cannot be listed: no socket of this process can be seen")
            return []
        }
        return Set(entries.compactMap(Int32.init).filter(isClosedTCPSocket))
    }

    /// Waits (bounded, for a hang) until no such socket is left: one a transport forgot stays.
    static func expectNone() async {
        let none = await eventually(within: TestTiming.scaled(.seconds(20)), every: .milliseconds(50)) {
            await offPool { descriptors().isEmpty }
        }
        #expect(none, "descriptors of reset or closed TCP sockets still open: \(descriptors().sorted())")
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

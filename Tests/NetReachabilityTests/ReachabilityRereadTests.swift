import Foundation
import NetTestSupport
import Testing

/// When the monitor re-reads the kernel's state, on the real kernel: after a socket overflow, and
/// at the end of a debounce window that later events do not push back. ReachabilityDaemon runs
/// in a namespace of the test's own, as in ReachabilityKernelTests.
@Suite("Reachability's re-reads on the real kernel")
struct ReachabilityRereadTests {
    @Test("An overflowed event socket (ENOBUFS): the monitor goes on and yields the next change, its stream never ends")
    func overflowIsAChange() async throws {
        let namespace = try await NetworkNamespace.withVethPair()
        try await namespace.ip("addr add 192.0.2.2/24 dev veth0")
        try await namespace.ip("route add default via 192.0.2.1 dev veth0")
        // One byte asked for: the kernel's smallest queue, a few messages deep.
        let daemon = try DaemonRun(namespace: namespace, arguments: ["--debounce-ms", "20", "--receive-buffer", "1"])
        let first = try await daemon.waitFor("the first element") { _ in true }
        #expect(first.line.reachable)
        let socket = try #require(try EventSocket(ofProcess: daemon.pid), "the daemon's subscribed netlink socket")

        // Flaps until the kernel has dropped events for the socket (the first burst does it on any
        // machine seen so far; the daemon reads meanwhile, so a drop is checked, not assumed).
        var bursts = 0
        while try socket.drops() == 0 && bursts < 5 {
            try await namespace.batch((0..<1000).flatMap { _ in ["link set veth0 down", "link set veth0 up"] })
            bursts += 1
        }
        #expect(try socket.drops() > 0, "no event was dropped after \(bursts) bursts of 1,000 flaps")
        try await namespace.ip("route replace default via 192.0.2.1 dev veth0 metric 7")
        // The last change after the overflow: a monitor that took ENOBUFS for an error would have
        // ended its stream (the daemon exits). (That ENOBUFS itself counts as a change is
        // DumpVerdictTests' to show: this change's own event reaches the socket.)
        _ = try await daemon.waitFor("the state after the overflow") {
            $0.reachable && $0.gateways.map(\.metric) == [7]
        }
        #expect(socket.isOpen(), "the daemon's event socket closed: monitoring ended")
    }

    @Test("The debounce window opens at the first event of a burst: events every few milliseconds do not hold the re-read off")
    func windowIsNotPushedBack() async throws {
        let namespace = try await NetworkNamespace.withVethPair()
        let debounce = Duration.seconds(1)
        let daemon = try DaemonRun(namespace: namespace, arguments: ["--debounce-ms", "1000"])
        let first = try await daemon.waitFor("the first element") { _ in true }
        #expect(!first.line.reachable)

        // Noise: veth1's alias changed again and again, each change an RTM_NEWLINK event that
        // leaves the path as it was, each stamped (CLOCK_REALTIME, as the daemon's lines) once made.
        let ip = namespace.ip
        let noise = try LineCollectingProcess("/bin/bash", ["-c", "i=0; while :; do \(ip) -n \(namespace.name) link set veth1 alias n$((i++)) || exit 1; echo $EPOCHREALTIME; done"])
        #expect(await eventually(within: TestTiming.hangGuard) { noise.lines.all.count >= 3 }, "no noise")

        let changed = realtimeNanoseconds()
        try await namespace.ip("addr add 192.0.2.2/24 dev veth0")
        try await namespace.ip("route add default via 192.0.2.1 dev veth0")
        // A window pushed back by every event would close only when the noise stopped, which it
        // does not until this test ends: the bound catches that hang.
        let (_, element) = try await daemon.waitFor("reachable amid the noise") { $0.reachable }

        // The noise goes on after the element (its next stamp may reach the pipe a moment later).
        var stamps: [Int64] = []
        let wentOn = await eventually(within: TestTiming.hangGuard) {
            stamps = noise.lines.all.compactMap(Self.nanoseconds(fromEpochRealtime:))
            return stamps.contains { $0 > element.realtimeNanoseconds }
        }
        #expect(wentOn, "the noise had stopped before the element came")
        // Noise came closer together than the debounce from the change to the element, so every
        // window that opened in that time would have been pushed back.
        let during = [changed] + stamps.filter { $0 > changed && $0 < element.realtimeNanoseconds } + [element.realtimeNanoseconds]
        let widestGap = zip(during, during.dropFirst()).map { $1 - $0 }.max() ?? 0
        #expect(widestGap < debounce.nanoseconds, "a gap of \(widestGap) ns in the noise: a window could have closed in it")
        print("reachability under noise: element \((element.realtimeNanoseconds - changed) / 1_000_000) ms after the change, \(during.count - 2) noise events meanwhile, widest gap \(widestGap / 1_000_000) ms")
    }

    /// `1764540000.123456` (bash's `$EPOCHREALTIME`) in nanoseconds.
    static func nanoseconds(fromEpochRealtime text: String) -> Int64? {
        let parts = text.split(separator: ".")
        guard parts.count == 2, let seconds = Int64(parts[0]), let micro = Int64(parts[1]), parts[1].count == 6 else { return nil }
        return seconds * 1_000_000_000 + micro * 1000
    }
}

private extension Duration {
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}

/// A process's netlink socket subscribed to route events, read from `/proc/<pid>/net/netlink`
/// (the process's network namespace): its inode, and the kernel's count of what it dropped.
struct EventSocket {
    let pid: pid_t
    let inode: String

    /// The process's NETLINK_ROUTE socket with multicast groups, or nil if it has none.
    init?(ofProcess pid: pid_t) throws {
        let open = Self.socketInodes(of: pid)
        guard let row = try Self.rows(of: pid).first(where: { $0.protocolNumber == "0" && $0.groups != "00000000" && open.contains($0.inode) }) else { return nil }
        self.pid = pid
        self.inode = row.inode
    }

    /// Events the kernel could not queue for this socket (each overflow reported as ENOBUFS).
    func drops() throws -> Int {
        guard let row = try Self.rows(of: pid).first(where: { $0.inode == inode }), let drops = Int(row.drops) else {
            throw CommandFailed(description: "socket \(inode) of process \(pid) is gone")
        }
        return drops
    }

    /// Whether the process still has the socket open.
    func isOpen() -> Bool { Self.socketInodes(of: pid).contains(inode) }

    private static func socketInodes(of pid: pid_t) -> Set<String> {
        let directory = "/proc/\(pid)/fd"
        let links = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(links.compactMap { name -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"),
                  target.hasPrefix("socket:["), target.hasSuffix("]") else { return nil }
            return String(target.dropFirst("socket:[".count).dropLast())
        })
    }

    /// `sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode`, one row per socket.
    private static func rows(of pid: pid_t) throws -> [(protocolNumber: String, groups: String, drops: String, inode: String)] {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/net/netlink", encoding: .utf8) else {
            throw CommandFailed(description: "process \(pid) has ended (its /proc/\(pid)/net/netlink cannot be read)")
        }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 10 else { return nil }
            return (fields[1], fields[3], fields[8], fields[9])
        }
    }
}

import Foundation
import NetTestSupport
import Synchronization

/// Why a kernel test could not set up its network namespace; the message says how to fix it.
struct NamespaceUnavailable: Error, CustomStringConvertible {
    let description: String
}

/// CLOCK_MONOTONIC in nanoseconds: the clock the daemon stamps its lines with.
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// CLOCK_REALTIME in nanoseconds: the clock of the daemon's `realtimeNanoseconds` and of bash's
/// `$EPOCHREALTIME`.
func realtimeNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// A network namespace of the test's own (`ip netns add`), deleted with everything in it at the end.
final class NetworkNamespace {
    static let ipCommand = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    let name = "net-test-" + UUID().uuidString.prefix(8).lowercased()
    let ip: String

    init() throws {
        guard let ip = Self.ipCommand else {
            throw NamespaceUnavailable(description: "`ip` from iproute2 is not installed (apt-get install iproute2); the reachability tests need it to build veth links in a network namespace")
        }
        guard geteuid() == 0 else {
            throw NamespaceUnavailable(description: "creating a named network namespace (`ip netns add`) needs root; run the tests as root (euid is \(geteuid()))")
        }
        self.ip = ip
        do {
            try runProcess(ip, ["netns", "add", name])
        } catch {
            throw NamespaceUnavailable(description: "`ip netns add` failed, so this machine cannot give the tests a network namespace: \(error)")
        }
    }

    deinit { _ = try? runProcess(ip, ["netns", "delete", name]) }

    /// A namespace holding veth0 (the monitor's) and its peer veth1, both up.
    static func withVethPair() async throws -> NetworkNamespace {
        let namespace = try NetworkNamespace()
        try await namespace.ip("link add veth0 type veth peer name veth1")
        try await namespace.ip("link set veth1 up")
        try await namespace.ip("link set veth0 up")
        return namespace
    }

    /// `ip -n <namespace> <arguments>`, split on spaces, off the cooperative pool.
    func ip(_ command: String) async throws {
        try await runProcessOffPool(ip, ["-n", name] + command.split(separator: " ").map(String.init))
    }

    /// Many `ip` commands in one process (`ip -batch`), as fast as the kernel takes them, off the
    /// cooperative pool (a 2,000-change batch keeps the kernel busy for a while).
    func batch(_ commands: [String]) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-batch")
        try Data(commands.joined(separator: "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await runProcessOffPool(ip, ["-n", name, "-batch", file.path])
    }

    /// Runs a program inside the namespace (`ip netns exec`, which also mounts the namespace's sysfs).
    func execArguments(_ program: String, _ arguments: [String]) -> (String, [String]) {
        (ip, ["netns", "exec", name, program] + arguments)
    }
}

/// One line of ReachabilityDaemon's output.
struct PathLine: Decodable, Equatable {
    struct Interface: Decodable, Equatable {
        let name: String
        let kind: String
        let addresses: [String]
        let ipv4: Bool
        let ipv6: Bool
    }

    struct Gateway: Decodable, Equatable {
        let address: String?
        let interface: String
        let family: String
        let metric: UInt32
    }

    let monotonicNanoseconds: Int64
    let realtimeNanoseconds: Int64
    let connection: String
    let reachable: Bool
    let expensive: Bool
    let ipv4: Bool
    let ipv6: Bool
    let interfaces: [Interface]
    let gateways: [Gateway]

    /// Everything but the timestamp.
    func sameState(as other: PathLine) -> Bool {
        connection == other.connection && reachable == other.reachable && expensive == other.expensive && ipv4 == other.ipv4
            && ipv6 == other.ipv6 && interfaces == other.interfaces && gateways == other.gateways
    }
}

/// The daemon built next to this test binary.
func daemonPath() throws -> String {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let path = executable.deletingLastPathComponent().appendingPathComponent("ReachabilityDaemon").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw CommandFailed(description: "ReachabilityDaemon was not built next to the tests at \(path)")
    }
    return path
}

/// Complete lines from a pipe, collected on the pipe's handler thread.
final class LineStore: Sendable {
    private let lines = Mutex<[String]>([])
    private let pending = Mutex<Data>(Data())

    func append(_ data: Data) {
        let complete: [String] = pending.withLock { buffer in
            buffer.append(data)
            var found: [String] = []
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                found.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer.removeSubrange(buffer.startIndex...newline)
            }
            return found
        }
        lines.withLock { $0 += complete }
    }

    var all: [String] { lines.withLock { $0 } }
}

/// A background process whose standard output lines are collected as they arrive (on a
/// dedicated thread that blocks in `read`).
class LineCollectingProcess {
    private let child: Subprocess
    let lines = LineStore()

    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        let child = try Subprocess(executable, arguments, environment: environment)
        let lines = self.lines
        self.child = child
        let output = child.output
        // A running Thread keeps itself alive; it ends when the child closes its output.
        Thread { Subprocess.drain(output) { lines.append($0) } }.start()
    }

    var pid: pid_t { child.pid }

    deinit {
        child.terminate()
        child.wait()
    }
}

/// A running ReachabilityDaemon in a namespace, with its elements decoded.
final class DaemonRun: LineCollectingProcess {
    init(namespace: NetworkNamespace, arguments: [String]) throws {
        let (executable, fullArguments) = namespace.execArguments(try daemonPath(), arguments)
        try super.init(executable, fullArguments)
    }

    var elements: [PathLine] {
        get throws { try lines.all.map { try JSONDecoder().decode(PathLine.self, from: Data($0.utf8)) } }
    }

    /// Waits for an element after the first `skipping` that satisfies `predicate`; `timeout` only
    /// catches a hang (``TestTiming/hangGuard``), and the elements get one last look after it, so
    /// a wait that resumed late still sees what came meanwhile.
    func waitFor(_ what: String, after skipping: Int = 0, timeout: Duration = TestTiming.hangGuard, _ predicate: (PathLine) -> Bool) async throws -> (index: Int, line: PathLine) {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let expired = ContinuousClock.now >= deadline
            let all = try elements
            if let index = all.indices.dropFirst(skipping).first(where: { predicate(all[$0]) }) { return (index, all[index]) }
            if expired { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw CommandFailed(description: "timed out waiting for \(what); elements so far: \(try elements)")
    }
}

/// `ip -ts monitor route` in a namespace: an independent listener that stamps each kernel event.
final class RouteMonitorRun: LineCollectingProcess {
    init(namespace: NetworkNamespace) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        try super.init(namespace.ip, ["-n", namespace.name, "-ts", "monitor", "route"], environment: environment)
    }

    /// The receive times (CLOCK_REALTIME, ns) of events whose text contains `fragment`.
    func eventTimes(containing fragment: String) -> [Int64] {
        lines.all.filter { $0.contains(fragment) }.compactMap(Self.timestamp)
    }

    /// Parses `[2026-11-21T06:20:52.821851] …` (UTC).
    static func timestamp(_ line: String) -> Int64? {
        guard line.hasPrefix("["), let end = line.firstIndex(of: "]") else { return nil }
        let parts = line[line.index(after: line.startIndex)..<end].split(whereSeparator: { "-T:.".contains($0) }).compactMap { Int($0) }
        guard parts.count == 7 else { return nil }
        var fields = tm()
        fields.tm_year = Int32(parts[0] - 1900)
        fields.tm_mon = Int32(parts[1] - 1)
        fields.tm_mday = Int32(parts[2])
        fields.tm_hour = Int32(parts[3])
        fields.tm_min = Int32(parts[4])
        fields.tm_sec = Int32(parts[5])
        return Int64(timegm(&fields)) * 1_000_000_000 + Int64(parts[6]) * 1000
    }
}

import BenchmarkSupport
import Foundation
import Net

/// Measures, in a network namespace of its own, how long a carrier loss takes to reach the
/// notifier's stream.
///
/// A dedicated thread moves itself into a new network namespace (`unshare(CLONE_NEWNET)`), builds a
/// veth pair there with `ip` (children inherit the thread's namespace), and starts the notifier
/// (its netlink sockets are opened on that thread, so they watch that namespace). Each sample adds
/// a default route, waits until the path is reachable, then takes the peer down with an `ioctl`
/// (no process start in the timed part) and times the arrival of the unreachable element.
enum LinkChangeLatency {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func measure(debounce: Duration, samples: Int) throws -> [Int] {
        let result = Protected<Result<[Int], any Error>>(.failure(Failure(description: "the namespace thread did not finish")))
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result.withLock { $0 = Result { try run(debounce: debounce, samples: samples) } }
            done.signal()
        }
        thread.start()
        done.wait()
        return try result.withLock { $0 }.get()
    }

    private static func run(debounce: Duration, samples: Int) throws -> [Int] {
        guard unshareNetworkNamespace() == 0 else { throw Failure(description: "unshare(CLONE_NEWNET) failed (errno \(errno)); run as root") }
        for command in ["link add veth0 type veth peer name veth1", "link set veth1 up", "link set veth0 up", "addr add 192.0.2.2/24 dev veth0"] {
            try ip(command)
        }
        let control = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(control) }
        let reachability = try NetworkReachability(debounce: debounce)
        let events = PathEvents(try reachability.startNotifier())
        defer { reachability.stopNotifier() }

        var latencies: [Int] = []
        for _ in 0..<samples {
            try ip("route replace default via 192.0.2.1 dev veth0")
            try events.wait { $0 }
            let started = DispatchTime.now().uptimeNanoseconds
            try setLink("veth1", up: false, control: control)
            let arrived = try events.wait { !$0 }
            latencies.append(Int((arrived - started) / 1_000))
            try setLink("veth1", up: true, control: control)
        }
        return latencies
    }

    /// `unshare(CLONE_NEWNET)` for the calling thread. Glibc declares `unshare` only under
    /// `_GNU_SOURCE`, which Swift's Glibc module does not set, so it is looked up at run time.
    private static func unshareNetworkNamespace() -> Int32 {
        typealias Unshare = @convention(c) (Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "unshare") else { return -1 }  // RTLD_DEFAULT
        let cloneNewNet: Int32 = 0x4000_0000
        return unsafeBitCast(symbol, to: Unshare.self)(cloneNewNet)
    }

    /// `ip ARGUMENTS`, run from this thread so that it acts in this thread's namespace.
    private static func ip(_ command: String) throws {
        let arguments = ["ip"] + command.split(separator: " ").map(String.init)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, "ip", nil, nil, argv, environ) == 0 else { throw Failure(description: "cannot start ip") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw Failure(description: "ip \(command) failed with status \(status)") }
    }

    /// Sets or clears IFF_UP with SIOCGIFFLAGS / SIOCSIFFLAGS.
    private static func setLink(_ name: String, up: Bool, control: Int32) throws {
        var request = ifreq()
        withUnsafeMutableBytes(of: &request.ifr_ifrn.ifrn_name) { buffer in
            for (index, byte) in name.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let getFlags: UInt = 0x8913, setFlags: UInt = 0x8914, interfaceUp: Int16 = 0x1
        guard withUnsafeMutablePointer(to: &request, { ioctl(control, getFlags, $0) }) == 0 else { throw Failure(description: "SIOCGIFFLAGS \(name): errno \(errno)") }
        request.ifr_ifru.ifru_flags = up ? request.ifr_ifru.ifru_flags | interfaceUp : request.ifr_ifru.ifru_flags & ~interfaceUp
        guard withUnsafeMutablePointer(to: &request, { ioctl(control, setFlags, $0) }) == 0 else { throw Failure(description: "SIOCSIFFLAGS \(name): errno \(errno)") }
    }
}

/// The notifier's elements, timestamped on arrival, for a thread that waits for them synchronously.
final class PathEvents: Sendable {
    private let arrivals = Protected<[(reachable: Bool, nanoseconds: UInt64)]>([])
    private let signal = DispatchSemaphore(value: 0)

    init(_ stream: AsyncThrowingStream<NetworkPath, any Error>) {
        Task { [arrivals, signal] in
            for try await path in stream {
                let now = DispatchTime.now().uptimeNanoseconds
                arrivals.withLock { $0.append((path.isReachable, now)) }
                signal.signal()
            }
        }
    }

    /// Waits (up to 5 s) for the next element whose reachability passes `matches`; returns its arrival time.
    @discardableResult
    func wait(_ matches: (Bool) -> Bool) throws -> UInt64 {
        while true {
            if let found = arrivals.withLock({ list -> UInt64? in
                defer { list.removeAll() }
                return list.last(where: { matches($0.reachable) })?.nanoseconds
            }) { return found }
            guard signal.wait(timeout: .now() + 5) == .success else {
                throw LinkChangeLatency.Failure(description: "no matching path element within 5 s")
            }
        }
    }
}

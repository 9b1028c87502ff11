// A daemon that links only NetReachability (no Foundation): prints the network path as one JSON
// object per line, first the current one, then one per change. The tests run it inside network
// namespaces; `.ci/run` checks with `ldd` that it loads no Foundation library.
//
//   ReachabilityDaemon [--once] [--debounce-ms N] [--cycles N] [--receive-buffer BYTES]
//
// `--receive-buffer` asks for a smaller queue on the monitor's event socket, so that a burst
// overflows it (ENOBUFS).
// `--cycles N` starts and stops the notifier N times (half by stopNotifier(), half by ending the
// iteration) and prints the process's descriptor and thread counts before and after (all threads,
// and the monitor's own, which are named "NetReachability").
import Glibc
import NetReachability

/// Writes to standard error; C's `stderr` global is not concurrency-safe in Swift 6.
func fail(_ message: String, status: Int32) -> Never {
    let line = message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

var once = false
var cycles = 0
var debounce = Duration.milliseconds(50)
var receiveBuffer: Int32?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--once": once = true
    case "--debounce-ms":
        guard let value = arguments.popFirst().flatMap({ Int($0) }), value >= 0 else {
            fail("--debounce-ms needs a whole number of milliseconds", status: 2)
        }
        debounce = .milliseconds(value)
    case "--receive-buffer":
        guard let value = arguments.popFirst().flatMap({ Int32($0) }), value > 0 else {
            fail("--receive-buffer needs a positive whole number of bytes", status: 2)
        }
        receiveBuffer = value
    case "--cycles":
        guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else {
            fail("--cycles needs a positive whole number", status: 2)
        }
        cycles = value
    default:
        fail("usage: ReachabilityDaemon [--once] [--debounce-ms N] [--cycles N] [--receive-buffer BYTES]", status: 2)
    }
}

func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

func json(_ path: NetworkPath) -> String {
    var now = timespec()
    var wall = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    clock_gettime(CLOCK_REALTIME, &wall)
    let interfaces = path.interfaces.map { interface in
        "{\"name\":\(quoted(interface.name)),\"kind\":\(quoted(interface.kind.rawValue)),"
            + "\"addresses\":[\(interface.addresses.map { quoted($0.description) }.joined(separator: ","))],"
            + "\"ipv4\":\(interface.supportsIPv4),\"ipv6\":\(interface.supportsIPv6)}"
    }
    let gateways = path.gateways.map { gateway in
        "{\"address\":\(gateway.address.map { quoted($0.description) } ?? "null"),"
            + "\"interface\":\(quoted(gateway.interfaceName)),\"family\":\(quoted(gateway.family.rawValue)),\"metric\":\(gateway.metric)}"
    }
    return "{\"monotonicNanoseconds\":\(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)),"
        + "\"realtimeNanoseconds\":\(Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)),"
        + "\"connection\":\(quoted(path.connection.rawValue)),\"reachable\":\(path.isReachable),"
        + "\"expensive\":\(path.isExpensive),\"ipv4\":\(path.supportsIPv4),\"ipv6\":\(path.supportsIPv6),"
        + "\"interfaces\":[\(interfaces.joined(separator: ","))],\"gateways\":[\(gateways.joined(separator: ","))]}"
}

func emit(_ path: NetworkPath) {
    print(json(path))
    fflush(nil)  // every stream: a consumer reading the pipe sees each line at once
}

/// The names in a directory, without `.` and `..`. The list is taken while the directory is
/// open, so for /proc/self/fd it includes opendir's own descriptor.
func names(in path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Open descriptors, not counting the one used to list them.
func openDescriptors() -> Int { names(in: "/proc/self/fd").count - 1 }

/// All of the process's threads.
func threads() -> Int { names(in: "/proc/self/task").count }

/// Threads named "NetReachability" (the monitor's), from /proc/self/task/*/comm. The process's
/// other threads are Swift's pool, which may grow under load.
func monitorThreads() -> Int {
    names(in: "/proc/self/task").filter { task in
        guard let file = fopen("/proc/self/task/\(task)/comm", "r") else { return false }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return false }
        return String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == "NetReachability"
    }.count
}

func startStopCycles(_ reachability: NetworkReachability, count: Int) async throws {
    for cycle in 0..<count {
        let stream = try reachability.startNotifier()
        if cycle.isMultiple(of: 2) {
            var iterator = stream.makeAsyncIterator()
            _ = try await iterator.next()
            reachability.stopNotifier()
            guard try await iterator.next() == nil else { fail("the stream went on after stopNotifier()", status: 1) }
        } else {
            for try await _ in stream { break }
        }
    }
}

do {
    let reachability = try receiveBuffer.map { try NetworkReachability(debounce: debounce, eventReceiveBuffer: $0) }
        ?? NetworkReachability(debounce: debounce)
    if cycles > 0 {
        try await startStopCycles(reachability, count: 2)  // warm up Swift's thread pool first
        let before = (fds: openDescriptors(), threads: threads(), monitors: monitorThreads())
        try await startStopCycles(reachability, count: cycles)
        // pthread_join returns when the kernel clears the thread's id, a moment before /proc stops
        // listing the task, and the last cycle's stream may end on another thread a moment after
        // the loop; allow that moment, up to 10 s on a busy machine (a leaked thread or
        // descriptor never goes away; the test allows the runtime 2 descriptors of its own).
        let end = ContinuousClock.now + .seconds(10)
        while (monitorThreads() > 0 || openDescriptors() > before.fds + 2) && ContinuousClock.now < end {
            usleep(1000)
        }
        let after = (fds: openDescriptors(), threads: threads(), monitors: monitorThreads())
        print("{\"fdsBefore\":\(before.fds),\"fdsAfter\":\(after.fds),\"threadsBefore\":\(before.threads),\"threadsAfter\":\(after.threads),"
            + "\"monitorThreadsBefore\":\(before.monitors),\"monitorThreadsAfter\":\(after.monitors)}")
    } else if once {
        emit(try reachability.currentPath())
    } else {
        for try await path in try reachability.startNotifier() {
            emit(path)
        }
    }
} catch {
    fail("ReachabilityDaemon: \(error)", status: 1)
}

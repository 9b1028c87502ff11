// A side-by-side load driver for one client at a time, for `perf`/`callgrind` and for ratios that
// must compare like with like: the server runs in another process, pinned to its own core.
//
//     taskset -c 1 .build/release/NetLoad server &          # prints its base URL
//     taskset -c 0 .build/release/NetLoad run <client> <workload> <URL> [requests] [runs]
//     taskset -c 0 .build/release/NetLoad transfer <client> <workload> <URL> [runs] [primed]
//     taskset -c 0 .build/release/NetLoad session <canned|canned-client|canned-stream|canned-observed|canned-observed-system|canned-traced|stub|client|openapi-canned|openapi-bare> [requests] [runs] [in flight]
//     taskset -c 0 .build/release/NetLoad growth <client> <URL> [calls] [steps] [rotate] [query=N]
//     taskset -c 0 .build/release/NetLoad sse-latency <net-ahc|net-urlsession> <URL> [events] [runs]
//     taskset -c 0 .build/release/NetLoad openapi <client> <seq|par64|download> <URL> [requests or MB] [runs]
//     taskset -c 0 .build/release/NetLoad memory <client> <URL> [calls]
//
// The loops run off the main actor (the closures are `@Sendable`), as a server's tasks do.
// Clients: raw-ahc, raw-ahc-whole-call, net-ahc (a session actor), net-ahc-client (NetworkClient),
// net-ahc-exchange and net-ahc-send (the transport alone, and with Transport.send), raw-urlsession,
// raw-urlsession-delegate, net-urlsession, net-urlsession-client, every one with the same
// 64-connection pool, no redirects, no cookies or cache, a 60 s limit and the same decompression
// setting (see LoadClients.swift). The limit covers the whole call, except raw-ahc's (AsyncHTTPClient's
// async API ends it at the head; raw-ahc-whole-call is the same client with a whole-call limit),
// Net's requestStream's (seqstream: it ends at the head too) and raw URLSession's (libcurl's idle
// limit). Workloads: seq (small GETs one after another), par64 (64 in
// flight), seqstream (small GETs one after another, each body read as it arrives: requestStream, raw AsyncHTTPClient's body iterated). Each run prints requests/s (ms/request below 100 requests/s), the client process's CPU µs, context switches and minor
// page faults per request; the last line is the median of the runs with min–max, the peak resident
// memory and the peak heap in use (sampled every 5 ms, HeapSampler; NETLOAD_HEAP=0 leaves the
// sampler out). `openapi` drives the generated OpenAPI client on
// net-ahc, openapi-ahc (swift-openapi-async-http-client), net-urlsession or openapi-urlsession
// (see OpenAPILoad.swift). `transfer` runs one of §2's 100 MB transfers or §7's 1 GiB stream
// through package-benchmark's four clients, on 8 connections (Transfers.swift;
// Benchmarks/transfers.sh runs each in 5 processes): Net's two are `NetworkClient`s, named as in
// `run` (`net-ahc-client`, `net-urlsession-client`; in runs up to f7fd0ac, `net-ahc` and `net-urlsession`).
// `memory` is §5: memory and descriptors over 100,000 calls with 64 in flight, through the same
// four clients (MemoryOverTime.swift; Benchmarks/memory-over-time.sh runs each in 5 processes).
import BenchmarkSupport
import Foundation
import Net


func usage() -> Never {
    FileHandle.standardError.write(Data("""
        usage: NetLoad server
               NetLoad run <client> <seq|seqstream|par64> <base URL> [requests] [runs]
               clients: raw-ahc raw-ahc-whole-call net-ahc net-ahc-client net-ahc-exchange net-ahc-send raw-urlsession raw-urlsession-delegate net-urlsession net-urlsession-client
               NetLoad transfer <raw-urlsession|net-urlsession-client|raw-ahc|net-ahc-client> <get100mb|dlfile100mb|up100mb|upfile100mb|stream1g> <base URL> [runs] [primed]
               NetLoad session <canned|canned-client|canned-stream|canned-observed|canned-observed-system|canned-traced|stub|client|openapi-canned|openapi-bare> [requests] [runs] [in flight]
               NetLoad growth <raw-urlsession|raw-urlsession-delegate|net-urlsession-client|net-ahc-client|raw-ahc> <base URL> [calls] [steps] [rotate] [query=N]
               NetLoad sse-latency <net-ahc|net-urlsession> <base URL> [events] [runs]
               NetLoad openapi <net-ahc|openapi-ahc|net-urlsession|openapi-urlsession> <seq|par64|download> <base URL> [requests or MB] [runs]
               NetLoad memory <raw-urlsession|net-urlsession-client|raw-ahc|net-ahc-client> <base URL> [calls]

        """.utf8))
    exit(2)
}

/// One run's figures.
struct RunFigures {
    let requestsPerSecond: Double
    let cpuMicrosecondsPerRequest: Double
    let contextSwitchesPerRequest: Double
    let pageFaultsPerRequest: Double
}

/// Runs `body` (which sends `requests` requests) `runs` times after one warm-up, printing each run
/// and then the medians with min–max, with the peak resident memory and, while the runs went on,
/// the peak heap in use.
func measure(label: String, requests: Int, runs: Int, _ body: @Sendable () async throws -> Void) async throws {
    try await body()  // warm-up: connections, caches, lazily started threads
    let heap = ProcessInfo.processInfo.environment["NETLOAD_HEAP"] == "0" ? nil : HeapSampler()
    var figures: [RunFigures] = []
    for run in 1...runs {
        let cpu = ProcessProbe.cpuMicroseconds()
        let counts = ProcessProbe.schedulingCounts()
        let seconds = try await secondsTaken(by: body)
        let countsAfter = ProcessProbe.schedulingCounts()
        let figure = RunFigures(requestsPerSecond: Double(requests) / seconds,
                                cpuMicrosecondsPerRequest: Double(ProcessProbe.cpuMicroseconds() - cpu) / Double(requests),
                                contextSwitchesPerRequest: Double(countsAfter.contextSwitches - counts.contextSwitches) / Double(requests),
                                pageFaultsPerRequest: Double(countsAfter.pageFaults - counts.pageFaults) / Double(requests))
        figures.append(figure)
        let rate = RateUnit(for: figure.requestsPerSecond)
        print("\(label) run \(run): \(Int(rate.value(figure.requestsPerSecond))) \(rate.name), \(format(figure.cpuMicrosecondsPerRequest)) µs CPU/request, "
              + "\(format(figure.contextSwitchesPerRequest)) context switches and \(format(figure.pageFaultsPerRequest)) page faults per request")
    }
    let unit = RateUnit(for: figures.map(\.requestsPerSecond).sorted()[figures.count / 2])
    let rate = medianRange(figures.map { unit.value($0.requestsPerSecond) }, unit: unit.name) { "\(Int($0))" }
    print("\(label) median: \(rate), "
          + "\(medianRange(figures.map(\.cpuMicrosecondsPerRequest), unit: "µs CPU/request", format)), "
          + "\(medianRange(figures.map(\.contextSwitchesPerRequest), unit: "context switches/request", format)), "
          + "\(medianRange(figures.map(\.pageFaultsPerRequest), unit: "page faults/request", format)), "
          + "peak RSS \(ProcessProbe.peakResidentKiB()) KiB"
          + (heap?.stop().map { ", peak heap in use \($0) KiB" } ?? ""))
    ProcessProbe.saveMappingsIfAsked()
}

/// Runs `body` (which reads `bytes` bytes) `runs` times after one warm-up, printing each run's
/// MB/s and then the median with min–max and the process's peak resident memory.
func measureThroughput(label: String, bytes: Int, runs: Int, _ body: @Sendable () async throws -> Void) async throws {
    try await body()
    var rates: [Double] = []
    for run in 1...runs {
        rates.append(Double(bytes) / 1e6 / (try await secondsTaken(by: body)))
        print("\(label) run \(run): \(Int(rates[rates.count - 1])) MB/s")
    }
    print("\(label) median: \(medianRange(rates, unit: "MB/s") { "\(Int($0))" }), peak RSS \(ProcessProbe.peakResidentKiB()) KiB")
    ProcessProbe.saveMappingsIfAsked()
}

/// How a rate is shown: requests per second, or, for slow workloads (a 100 MiB body per request,
/// under 100 requests/s), milliseconds per request.
enum RateUnit {
    case requestsPerSecond, millisecondsPerRequest

    init(for requestsPerSecond: Double) {
        self = requestsPerSecond >= 100 ? .requestsPerSecond : .millisecondsPerRequest
    }

    var name: String { self == .requestsPerSecond ? "req/s" : "ms/request" }

    /// `requestsPerSecond` in this unit.
    func value(_ requestsPerSecond: Double) -> Double {
        self == .requestsPerSecond ? requestsPerSecond : 1000 / requestsPerSecond
    }
}

/// How long `body` took, in seconds.
func secondsTaken(by body: @Sendable () async throws -> Void) async throws -> Double {
    let start = ContinuousClock.now
    try await body()
    return seconds(start.duration(to: .now))
}

/// `duration` in seconds.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// `median unit (min–max)` of `values`, each shown by `show`.
func medianRange(_ values: [Double], unit: String, _ show: (Double) -> String) -> String {
    let sorted = values.sorted()
    return "\(show(sorted[sorted.count / 2])) \(unit) (\(show(sorted.first ?? 0))–\(show(sorted.last ?? 0)))"
}

func format(_ value: Double) -> String { String(format: "%.2f", value) }

/// The command the arguments name. Nonisolated (off the main actor), so that it runs the same
/// whichever way the main thread waits for it (below).
func runCommand() async throws {
    let arguments = CommandLine.arguments.dropFirst()
    switch arguments.first {
    case "server":
        FileHandle.standardOutput.write(Data((try await LoopbackServer.baseURL().absoluteString + "\n").utf8))
        while true { try await Task.sleep(for: .seconds(3600)) }
    case "run":
        let parts = Array(arguments.dropFirst())
        guard parts.count >= 3, let client = LoadClient(rawValue: parts[0]), let url = URL(string: parts[2]),
              let counts = TrailingArguments(parts.dropFirst(3), flags: [])?.counts(defaults: [20_000, 5]) else { usage() }
        let (requests, runs) = (counts[0], counts[1])
        let small = url.appendingPathComponent("small")
        let label = "\(client.rawValue) \(parts[1])"
        switch parts[1] {
        case "seq":
            try await measure(label: label, requests: requests, runs: runs) {
                for _ in 0..<requests { _ = try await client.get(small) }
            }
        case "seqstream":
            // Small GETs one after another, each body read as it arrives (`requestStream`; raw
            // AsyncHTTPClient: its response body iterated): what a streamed call costs beside `seq`.
            try await measure(label: label, requests: requests, runs: runs) {
                for _ in 0..<requests { _ = try await client.stream(small) }
            }
        case "par64":
            try await measure(label: label, requests: requests, runs: runs) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<64 {
                        group.addTask {
                            for _ in stride(from: worker, to: requests, by: 64) { _ = try await client.get(small) }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        default:
            usage()
        }
    case "transfer":
        let parts = Array(arguments.dropFirst())
        guard parts.count >= 3, let client = ComparedClient(commandName: parts[0]),
              let workload = TransferWorkload(rawValue: parts[1]), let url = URL(string: parts[2]) else { usage() }
        guard let rest = TrailingArguments(parts.dropFirst(3), flags: ["primed"]),
              let counts = rest.counts(defaults: [1]) else { usage() }
        try await measureTransfer(client: client, workload: workload, base: url, runs: counts[0],
                                  primed: rest.flags.contains("primed"))
    case "session":
        let parts = Array(arguments.dropFirst())
        guard let kind = parts.first,
              let send = try SessionScenario(kind)?.send ?? OpenAPICannedScenario.send(kind) else { usage() }
        // Calls in flight at once (1 by default): the same work at 64 shows what concurrency adds.
        guard let counts = TrailingArguments(parts.dropFirst(1), flags: [])?.counts(defaults: [200_000, 5, 1]) else { usage() }
        let (requests, runs, inFlight) = (counts[0], counts[1], counts[2])
        try await measure(label: "session \(kind) ×\(inFlight)", requests: requests, runs: runs) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<inFlight {
                    group.addTask { for _ in stride(from: worker, to: requests, by: inFlight) { try await send() } }
                }
                try await group.waitForAll()
            }
        }
    case "growth":
        let parts = Array(arguments.dropFirst())
        guard parts.count >= 2, let url = URL(string: parts[1]),
              let rest = TrailingArguments(parts.dropFirst(2), flags: ["rotate"], valued: ["query"]),
              let counts = rest.counts(defaults: [20_000, 5]) else { usage() }
        var queryBytes = 0
        if let query = rest.values["query"] {
            // `q=a` at the least.
            guard let bytes = Int(query), bytes >= 3 else { usage() }
            queryBytes = bytes
        }
        try await measureGrowth(client: parts[0], base: url, calls: counts[0], steps: counts[1],
                                rotate: rest.flags.contains("rotate"), queryBytes: queryBytes)
    case "sse-latency":
        let parts = Array(arguments.dropFirst())
        guard parts.count >= 2, let client = LoadClient(rawValue: parts[0]), let url = URL(string: parts[1]),
              let counts = TrailingArguments(parts.dropFirst(2), flags: [])?.counts(defaults: [1_000, 5]) else { usage() }
        try await measureEventLatency(client: client, base: url, events: counts[0], runs: counts[1])
    case "openapi":
        let parts = Array(arguments.dropFirst())
        guard parts.count >= 3, let client = OpenAPILoadClient(rawValue: parts[0]), let url = URL(string: parts[2]),
              let counts = TrailingArguments(parts.dropFirst(3), flags: [])?.counts(defaults: [20_000, 5]) else { usage() }
        try await measureOpenAPI(client: client, workload: parts[1], base: url, requests: counts[0], runs: counts[1])
    case "memory":
        let parts = Array(arguments.dropFirst())
        guard parts.count >= 2, let client = ComparedClient(commandName: parts[0]), let url = URL(string: parts[1]),
              let counts = TrailingArguments(parts.dropFirst(2), flags: [])?.counts(defaults: [100_000]) else { usage() }
        try await measureMemoryOverTime(client: client, base: url, calls: counts[0])
    default:
        usage()
    }
}

// Not an asynchronous top level: with one, the main thread parks in Dispatch's `dispatchMain`,
// where valgrind 3.24's callgrind stops with SIGSEGV as the first task's thread starts. With
// NETLOAD_MAIN_WAITS=1 the main thread waits on a semaphore instead, which callgrind runs
// (Benchmarks/NOTEBOOK.md, "instruction counts per call"); without it, as before, the main thread serves
// Dispatch's main queue.
let mainWaits = ProcessInfo.processInfo.environment["NETLOAD_MAIN_WAITS"] == "1"
let commandEnded = DispatchSemaphore(value: 0)
Task.detached {
    do {
        try await runCommand()
    } catch {
        FileHandle.standardError.write(Data("NetLoad: \(error)\n".utf8))
        exit(1)
    }
    // One thread ends the process: the main thread once it is told, or this one.
    if mainWaits { commandEnded.signal() } else { exit(0) }
}
if mainWaits {
    commandEnded.wait()
} else {
    dispatchMain()
}

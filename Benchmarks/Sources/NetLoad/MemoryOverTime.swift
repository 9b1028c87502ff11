import BenchmarkSupport
import Foundation

/// `NetLoad memory <client> <URL> [calls]`: §5 of Docs/Benchmarks.md, memory over a process's
/// life under load. Makes `calls` small GETs (100,000 by default) with 64 in flight through one of
/// `ComparedClient`'s four clients (one session or client for the whole process, 8 connections),
/// and reads the resident memory and the open descriptors before the first call, after 10 % and
/// 50 % of the calls and after the last, and the client's CPU per call. Prints each reading, then one line that
/// Benchmarks/medians.py reads (each figure as `value unit (value–value)`, the form of a median of
/// one), with the growth per call from the reading after 10 % to the last: what the calls keep once
/// the connections, threads and code the first ones bring are in place.
/// `Benchmarks/memory-over-time.sh` runs each client in 5 processes.
func measureMemoryOverTime(client: ComparedClient, base: URL, calls: Int) async throws {
    let url = base.appendingPathComponent("small")
    let label = "memory \(client.commandName) par64"
    var readings: [(moment: String, residentKiB: Int, descriptors: Int)] = []
    func read(_ moment: String, after completed: Int) {
        let reading = (moment: moment, residentKiB: ProcessProbe.residentKiB(), descriptors: ProcessProbe.openDescriptors())
        readings.append(reading)
        print("\(label) \(moment): \(completed) calls, resident \(reading.residentKiB) KiB, \(reading.descriptors) descriptors")
    }
    // The moments after which the resident memory is read, by the number of calls completed.
    var checkpoints = [("after 10%", calls / 10), ("after 50%", calls / 2), ("at end", calls)]
    var completed = 0
    var failures: [String] = []
    read("at start", after: 0)
    let cpu = ProcessProbe.cpuMicroseconds()
    let start = ContinuousClock.now
    await withTaskGroup(of: String?.self) { group in
        var started = 0
        func startCall() {
            started += 1
            group.addTask {
                do {
                    let length = try await client.get(url)
                    return length == 2 ? nil : "a body of \(length) bytes, not 2"
                } catch {
                    return "\(error)"
                }
            }
        }
        while started < min(64, calls) { startCall() }
        while let failure = await group.next() {
            completed += 1
            if let failure { failures.append(failure) }
            while let checkpoint = checkpoints.first, completed >= checkpoint.1 {
                read(checkpoint.0, after: completed)
                checkpoints.removeFirst()
            }
            if started < calls { startCall() }
        }
    }
    let elapsed = start.duration(to: .now)
    // Four readings: at start, after 10 %, after 50 %, at end (`calls` ≥ 1 puts every checkpoint at or below it).
    guard failures.isEmpty, readings.count == 4 else {
        throw MemoryOverTimeFailure(message: failures.first.map { "\(failures.count) of \(calls) calls failed, the first with \($0)" }
                                    ?? "\(readings.count) readings, not 4")
    }
    let rate = Double(calls) / seconds(elapsed)
    func one(_ value: String, _ unit: String) -> String { "\(value) \(unit) (\(value)–\(value))" }
    let figures = [one("\(Int(rate))", "req/s"), one(format(Double(ProcessProbe.cpuMicroseconds() - cpu) / Double(calls)), "µs CPU/request")]
        + readings.map { one(String(format: "%.1f", Double($0.residentKiB) / 1024), "MiB resident \($0.moment)") }
        + readings.map { one("\($0.descriptors)", "descriptors \($0.moment)") }
        + [one(format(Double(readings[3].residentKiB - readings[1].residentKiB) / Double(calls - calls / 10)),
               "KiB growth per call after 10%")]
    print("\(label) median: " + figures.joined(separator: ", "))
}

/// Calls of `NetLoad memory` that failed: the readings of a run with failures are not published.
struct MemoryOverTimeFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

import BenchmarkSupport
import Foundation
import Net

/// `NetLoad transfer <client> <workload> <URL> [runs]`: one of §2's 100 MB transfers or §7's 1 GiB
/// stream through one of `ComparedClient`'s four clients (the calls package-benchmark's
/// benchmarks make), timed `runs` times (1 by default) after one warm-up, in this process alone.
/// `Benchmarks/transfers.sh` runs each client in 5 such processes, alternated, for the medians
/// of 5 processes Docs/Benchmarks.md publishes.
enum TransferWorkload: String, CaseIterable {
    case get100mb, dlfile100mb, up100mb, upfile100mb, stream1g

    static let transferSize = 100_000_000
    static let streamSize = 1 << 30

    /// What one transfer of this workload does with `client` against the server at `base`;
    /// `cleanUp` removes whatever it left on disk.
    func transfer(with client: ComparedClient, base: URL) throws -> (run: @Sendable () async throws -> Void, cleanUp: @Sendable () -> Void) {
        let size = Self.transferSize
        let expect: @Sendable (Int, String) throws -> Void = { count, what in
            guard count == (self == .stream1g ? Self.streamSize : size) else {
                throw NetworkError.transport(.other("\(client.commandName) \(what) \(count) bytes"))
            }
        }
        switch self {
        case .get100mb:
            let url = base.appendingPathComponent("bytes/\(size)")
            return ({ try expect(try await client.get(url), "read") }, {})
        case .dlfile100mb:
            let url = base.appendingPathComponent("bytes/\(size)")
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("netload-download-\(getpid())")
            return ({ try expect(try await client.download(url, to: destination), "wrote") }, {})
        case .up100mb:
            // Bytes written, so the body is resident from the start for every client (zero pages of
            // `Data(count:)` would not be until a client copied them).
            let body = Data(repeating: 0x2A, count: size)
            let url = base.appendingPathComponent("upload")
            return ({ try expect(try await client.upload(.data(body), to: url), "had the server count") }, {})
        case .upfile100mb:
            let file = try ProcessProbe.scratchFile(size: size)
            let url = base.appendingPathComponent("upload")
            return ({ try expect(try await client.upload(.file(file), to: url), "had the server count") },
                    { try? FileManager.default.removeItem(at: file) })
        case .stream1g:
            let url = base.appendingPathComponent("bytes/\(Self.streamSize)")
            return ({ try expect(try await client.stream(url), "read") }, {})
        }
    }
}

/// Runs `workload` with `client` once to warm up and then `runs` times, printing each run's wall
/// clock and CPU time in milliseconds and, last, their medians with min–max and the process's
/// peak resident memory.
func measureTransfer(client: ComparedClient, workload: TransferWorkload, base: URL, runs: Int) async throws {
    let (transfer, cleanUp) = try workload.transfer(with: client, base: base)
    defer { cleanUp() }
    let label = "transfer \(client.commandName) \(workload.rawValue)"
    try await transfer()
    var wallClock: [Double] = []
    var cpu: [Double] = []
    for run in 1...runs {
        let cpuBefore = ProcessProbe.cpuMicroseconds()
        wallClock.append(try await secondsTaken(by: transfer) * 1000)
        cpu.append(Double(ProcessProbe.cpuMicroseconds() - cpuBefore) / 1000)
        print("\(label) run \(run): \(format(wallClock[run - 1])) ms, \(format(cpu[run - 1])) ms CPU")
    }
    print("\(label) median: \(medianRange(wallClock, unit: "ms", format)), \(medianRange(cpu, unit: "ms CPU", format)), "
          + "peak RSS \(ProcessProbe.peakResidentKiB()) KiB")
}

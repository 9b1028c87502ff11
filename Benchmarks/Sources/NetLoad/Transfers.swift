import BenchmarkSupport
import Foundation

/// `NetLoad transfer <client> <workload> <URL> [runs]`: one of §2's 100 MB transfers or §7's 1 GiB
/// stream (`TransferWorkload`, the calls package-benchmark's benchmarks make) through one of
/// `ComparedClient`'s four clients, once to warm up and then `runs` times (1 by default), in this
/// process alone. Prints each run's wall clock and CPU time in milliseconds and, last, their
/// medians with min–max and the process's peak resident memory. `Benchmarks/transfers.sh` runs
/// each client in 5 such processes, alternated, for the medians of 5 processes
/// Docs/Benchmarks.md publishes.
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

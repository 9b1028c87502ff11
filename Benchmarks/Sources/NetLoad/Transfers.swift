import BenchmarkSupport
import Foundation

/// `NetLoad transfer <client> <workload> <URL> [runs] [primed]`: one of §2's 100 MB transfers or §7's 1 GiB
/// stream (`TransferWorkload`, the calls package-benchmark's benchmarks make) through one of
/// `ComparedClient`'s four clients, once to warm up and then `runs` times (1 by default), in this
/// process alone. Prints each run's wall clock and CPU time in milliseconds and, last, their
/// medians with min–max and the process's peak resident memory. `Benchmarks/transfers.sh` runs
/// each client in 5 such processes, alternated, for the medians of 5 processes
/// Docs/Benchmarks.md publishes.
///
/// With `primed`, the process first makes three of the workload's transfers at 100 KB, so that
/// the code a client runs is resident before the first full transfer; the last line then also
/// gives the resident memory after them (and its file-backed part: the code run and data mapped
/// from files), and the peak's growth over it: the memory the full transfers took, without the
/// code that runs them. Its label ends in `primed`, so that summaries keep the two apart.
func measureTransfer(client: ComparedClient, workload: TransferWorkload, base: URL, runs: Int, primed: Bool) async throws {
    let (transfer, cleanUp) = try workload.transfer(with: client, base: base)
    defer { cleanUp() }
    let label = "transfer \(client.commandName) \(workload.rawValue)" + (primed ? " primed" : "")
    var primedResident: (total: Int, files: Int)?
    if primed {
        let (primer, primerCleanUp) = try workload.transfer(with: client, base: base, bytes: 100_000)
        defer { primerCleanUp() }
        for _ in 0..<3 { try await primer() }
        primedResident = (ProcessProbe.residentKiB(), ProcessProbe.residentFileKiB())
    }
    try await transfer()
    var wallClock: [Double] = []
    var cpu: [Double] = []
    for run in 1...runs {
        let cpuBefore = ProcessProbe.cpuMicroseconds()
        wallClock.append(try await secondsTaken(by: transfer) * 1000)
        cpu.append(Double(ProcessProbe.cpuMicroseconds() - cpuBefore) / 1000)
        print("\(label) run \(run): \(format(wallClock[run - 1])) ms, \(format(cpu[run - 1])) ms CPU")
    }
    let peak = ProcessProbe.peakResidentKiB()
    let afterPriming = primedResident.map {
        ", primed RSS \($0.total) KiB, primed RSS of files \($0.files) KiB, peak RSS growth over primed \(peak - $0.total) KiB"
    } ?? ""
    print("\(label) median: \(medianRange(wallClock, unit: "ms", format)), \(medianRange(cpu, unit: "ms CPU", format)), "
          + "peak RSS \(peak) KiB" + afterPriming)
    ProcessProbe.saveMappingsIfAsked()
}

import Foundation

/// This process's resident memory and open descriptors, read from /proc.
public enum ProcessProbe {
    /// Resident set size in KiB (`VmRSS` in /proc/self/status).
    public static func residentKiB() -> Int { statusKiB("VmRSS:") }

    /// Peak resident set size in KiB (`VmHWM`).
    public static func peakResidentKiB() -> Int { statusKiB("VmHWM:") }

    /// The part of the resident set that is pages of files (`RssFile`): code and data of the
    /// binary and the libraries, as far as they have been touched.
    public static func residentFileKiB() -> Int { statusKiB("RssFile:") }

    /// A `… kB` field of /proc/self/status, or -1.
    private static func statusKiB(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }

    /// Copies /proc/self/smaps (every mapping's resident, shared and anonymous KiB) to the file
    /// named by `NETLOAD_SMAPS`, when it is set: to compare two clients' memory mapping by mapping.
    public static func saveMappingsIfAsked() {
        // Read to its end: /proc reports no size, and a read by the file's size stops early.
        guard let path = ProcessInfo.processInfo.environment["NETLOAD_SMAPS"],
              let mappings = try? FileHandle(forReadingAtPath: "/proc/self/smaps")?.readToEnd() else { return }
        FileManager.default.createFile(atPath: path, contents: mappings)
        saveResidentCodePages(to: path + ".pages")
    }

    /// For each executable mapping of this process's own binary: its start, end and file offset,
    /// then one character per page, `1` when it is in this process's page table (bit 63 of its
    /// /proc/self/pagemap entry) and `0` when not: which code the process has touched, with the
    /// pages the kernel mapped around each touch (fault-around).
    private static func saveResidentCodePages(to path: String) {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8),
              let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              let pagemap = FileHandle(forReadingAtPath: "/proc/self/pagemap") else { return }
        defer { try? pagemap.close() }
        var report = ""
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "r-xp", fields[5] == executable else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard bounds.count == 2 else { continue }
            let pages = Int((bounds[1] - bounds[0]) / 4096)
            guard (try? pagemap.seek(toOffset: bounds[0] / 4096 * 8)) != nil,
                  let entries = try? pagemap.read(upToCount: pages * 8), entries.count == pages * 8 else { continue }
            var bits = ""
            for page in 0..<pages {
                let high = entries[entries.startIndex + page * 8 + 7]
                bits += high & 0x80 != 0 ? "1" : "0"
            }
            report += "\(fields[0]) \(fields[2])\n\(bits)\n"
        }
        FileManager.default.createFile(atPath: path, contents: Data(report.utf8))
    }

    /// Open file descriptors (entries of /proc/self/fd).
    public static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// CPU time (user + system) this process has used, in microseconds.
    public static func cpuMicroseconds() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    }

    /// Context switches (voluntary + involuntary) and minor page faults so far: the thread
    /// wake-ups and heap regrowth that the CPU time per request includes.
    public static func schedulingCounts() -> (contextSwitches: Int, pageFaults: Int) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return (usage.ru_nvcsw + usage.ru_nivcsw, usage.ru_minflt)
    }

    /// A file of `size` bytes in the temporary directory, written through to the disk (created once
    /// per process and size, and again after it is removed).
    public static func scratchFile(size: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("net-bench-\(getpid())-\(size).bin")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let block = Data(repeating: 0x62, count: min(size, 4 << 20))
        var written = 0
        while written < size {
            let piece = block.prefix(size - written)
            try handle.write(contentsOf: piece)
            written += piece.count
        }
        // On disk before anything is timed: the kernel's write-back of these pages must not run
        // beside the upload that reads them.
        try handle.synchronize()
        return url
    }
}

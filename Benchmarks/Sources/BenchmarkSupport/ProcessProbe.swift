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
    /// named by `NETLOAD_SMAPS`, when it is set, and which pages of the binary's code are mapped
    /// to that name plus `.pages`: to compare two clients' memory mapping by mapping
    /// (Benchmarks/resident-memory.py). Stops the process when either cannot be written, so that a
    /// comparison never reads an older process's files.
    public static func saveMappingsIfAsked() {
        guard let path = ProcessInfo.processInfo.environment["NETLOAD_SMAPS"] else { return }
        // Read to its end: /proc reports no size, and a read by the file's size stops early.
        guard let mappings = try? FileHandle(forReadingAtPath: "/proc/self/smaps")?.readToEnd(),
              FileManager.default.createFile(atPath: path, contents: mappings) else {
            fatalError("NETLOAD_SMAPS: could not copy /proc/self/smaps to \(path)")
        }
        guard let pages = residentCodePages(),
              FileManager.default.createFile(atPath: path + ".pages", contents: Data(pages.utf8)) else {
            fatalError("NETLOAD_SMAPS: could not read or save the binary's resident code pages to \(path).pages")
        }
    }

    /// For each executable mapping of this process's own binary: its start and end addresses, its
    /// file offset and the page size on one line, then one character per page, `1` when the page
    /// is in this process's page table (bit 63 of its /proc/self/pagemap entry) and `0` when not:
    /// which code the process has touched, with the pages the kernel mapped around each touch.
    /// `nil` when /proc cannot be read as expected.
    private static func residentCodePages() -> String? {
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pageSize > 0,
              let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8),
              let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              let pagemap = FileHandle(forReadingAtPath: "/proc/self/pagemap") else { return nil }
        defer { try? pagemap.close() }
        var report = ""
        for line in maps.split(separator: "\n") {
            // The path is the rest of the line after five fields, spaces and all.
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1] == "r-xp",
                  fields[5].trimmingCharacters(in: .whitespaces) == executable else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard bounds.count == 2 else { return nil }
            let pages = Int((bounds[1] - bounds[0]) / UInt64(pageSize))
            guard (try? pagemap.seek(toOffset: bounds[0] / UInt64(pageSize) * 8)) != nil,
                  let entries = try? pagemap.read(upToCount: pages * 8), entries.count == pages * 8 else { return nil }
            var bits = ""
            bits.reserveCapacity(pages)
            for page in 0..<pages {
                // Little-endian 64-bit entries: bit 63 is the top bit of the eighth byte.
                bits += entries[entries.startIndex + page * 8 + 7] & 0x80 != 0 ? "1" : "0"
            }
            report += "\(fields[0]) \(fields[2]) \(pageSize)\n\(bits)\n"
        }
        return report.isEmpty ? nil : report
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

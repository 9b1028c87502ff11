import Foundation

/// §2's 100 MB transfers and §7's 1 GiB stream (Docs/Benchmarks.md), defined once for both
/// harnesses that run them: package-benchmark's transfer and stream benchmarks, and
/// `NetLoad transfer`, which runs one client's transfer in a process of its own for
/// `Benchmarks/transfers.sh`'s medians of 5 processes.
public enum TransferWorkload: String, Sendable {
    /// 100 MB downloaded into memory.
    case get100mb
    /// 100 MB downloaded into a file, each client with its own writer.
    case dlfile100mb
    /// 100 MB uploaded from a `Data` in memory.
    case up100mb
    /// 100 MB uploaded from a file.
    case upfile100mb
    /// 1 GiB read as it arrives, each chunk counted and dropped.
    case stream1g

    /// The bytes one transfer moves.
    public var size: Int { self == .stream1g ? 1 << 30 : 100_000_000 }

    /// A transfer that moved another number of bytes than its workload's size.
    public struct WrongCount: Error, CustomStringConvertible {
        /// Which client, which workload and how many bytes it moved.
        public let description: String
    }

    /// One transfer of this workload through `client` against the server at `base`, throwing
    /// ``WrongCount`` unless it moves ``size`` bytes (or `bytes`: the same calls with another
    /// size), and `cleanUp`, which removes what the workload left on disk. Whatever the transfers
    /// share (the body in memory, the file to send) is made here, before any transfer is timed.
    public func transfer(with client: ComparedClient, base: URL, bytes: Int? = nil) throws -> (run: @Sendable () async throws -> Void, cleanUp: @Sendable () -> Void) {
        let size = bytes ?? size
        let check: @Sendable (Int) throws -> Void = { [self] count in
            guard count == size else {
                throw WrongCount(description: "\(client.commandName) \(rawValue): \(count) bytes, not \(size)")
            }
        }
        switch self {
        case .get100mb:
            let url = base.appendingPathComponent("bytes/\(size)")
            return ({ try check(try await client.get(url)) }, {})
        case .stream1g:
            let url = base.appendingPathComponent("bytes/\(size)")
            return ({ try check(try await client.stream(url)) }, {})
        case .dlfile100mb:
            let url = base.appendingPathComponent("bytes/\(size)")
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("net-bench-download-\(getpid())")
            return ({ try check(try await client.download(url, to: destination)) }, {})
        case .up100mb:
            // Bytes written, so the body is resident from the start for every client (zero pages of
            // `Data(count:)` would not be until a client copied them).
            let body = Data(repeating: 0x2A, count: size)
            let url = base.appendingPathComponent("upload")
            return ({ try check(try await client.upload(.data(body), to: url)) }, {})
        case .upfile100mb:
            let file = try ProcessProbe.scratchFile(size: size)
            let url = base.appendingPathComponent("upload")
            return ({ try check(try await client.upload(.file(file), to: url)) }, { try? FileManager.default.removeItem(at: file) })
        }
    }
}

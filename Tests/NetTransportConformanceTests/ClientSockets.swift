import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NetTestSupport
import Testing

/// The client side of connections to a port, read from the kernel's socket table, so a test can
/// see a socket the transport forgot to close (CLOSE_WAIT: the server left, the client never closed).
/// Only sockets this process holds count: the table is the whole machine's, where another process
/// (a proxy peer relaying to the same server, another job on the host) may hold its own.
enum ClientSockets {
    /// The TCP states (the kernel's numbers) of this process's sockets whose remote end is
    /// `port`, read on a thread of its own: after the load test the table holds thousands of
    /// lines, and scanning them on the cooperative pool stalled other tests.
    static func states(towardPort port: UInt16) async -> [UInt8] {
        let states = await offPool { socketInodes().map { scan(towardPort: port, held: $0) } }
        guard let states else {
            Issue.record("/proc/self/fd cannot be listed: no socket of this process can be seen")
            return []
        }
        return states
    }

    private static func scan(towardPort port: UInt16, held: Set<Int>) -> [UInt8] {
        ["/proc/net/tcp", "/proc/net/tcp6"].flatMap { path -> [UInt8] in
            guard let table = readProcFile(path) else { return [] }
            return table.split(separator: UInt8(ascii: "\n")).dropFirst().compactMap { line in
                // Fields: sl, local address, remote address ("HEX:PORT"), state, queues, timer,
                // retransmits, uid, timeout, inode (decimal), …
                let fields = line.split(separator: UInt8(ascii: " "))
                guard fields.count > 9, let colon = fields[2].lastIndex(of: UInt8(ascii: ":")),
                      hexValue(fields[2][(colon + 1)...]) == Int(port),
                      let inode = Int(String(decoding: fields[9], as: UTF8.self)), held.contains(inode) else { return nil }
                return hexValue(fields[3]).map { UInt8(truncatingIfNeeded: $0) }
            }
        }
    }

    /// The inodes of the sockets among this process's descriptors (`socket:[INODE]` links).
    private static func socketInodes() -> Set<Int>? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        return Set(entries.compactMap { entry -> Int? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                  target.hasPrefix("socket:[") else { return nil }
            return Int(target.dropFirst("socket:[".count).dropLast())
        })
    }

    private static func hexValue(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | Int(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | Int(digit - UInt8(ascii: "A") + 10)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | Int(digit - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return digits.isEmpty ? nil : value
    }

    static let closeWait: UInt8 = 0x08

    /// procfs files report size 0, and Foundation's `String(contentsOfFile:)` returned only the
    /// first 4,050 bytes of a 45 KB /proc/net/tcp here (Swift 6.3.1); read(2) to the end instead.
    private static func readProcFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}

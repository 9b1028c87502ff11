import Foundation

/// Distinct loopback ports nothing listens on: all bound at once (so none repeats), then closed; a
/// connection to one is refused. Shared with the CLI's tests by a symbolic link.
///
/// Chosen below the kernel's ephemeral range (`ip_local_port_range`): a port from that range, once
/// closed, can be handed to another test's listener, or be the local port of a connection to it
/// (a TCP self-connect), and a request there then meets a peer instead of a refusal.
package func closedLoopbackPorts(_ count: Int) throws -> [Int] {
    let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
        .split(whereSeparator: \.isWhitespace).compactMap { Int($0) } ?? []
    let ephemeralStart = range.first ?? 32_768
    let candidates = Array(10_000..<max(10_001, min(ephemeralStart, 65_536)))
    var sockets: [Int32] = []
    defer { sockets.forEach { close($0) } }
    var ports: [Int] = []
    // From a random place, so that tests running at once rarely try the same ports.
    let start = Int.random(in: 0..<candidates.count)
    for offset in 0..<candidates.count where ports.count < count {
        let port = candidates[(start + offset) % candidates.count]
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        sockets.append(socket)
        if bound { ports.append(port) }
    }
    guard ports.count == count else { throw POSIXError(.EADDRNOTAVAIL) }
    return ports
}

import Foundation

/// Distinct loopback ports nothing listens on: all bound at once (so none repeats), read, then
/// closed; a connection to one is refused. Shared with the CLI's tests by a symbolic link.
package func closedLoopbackPorts(_ count: Int) throws -> [Int] {
    var sockets: [Int32] = []
    defer { sockets.forEach { close($0) } }
    return try (0..<count).map { _ in
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        sockets.append(socket)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

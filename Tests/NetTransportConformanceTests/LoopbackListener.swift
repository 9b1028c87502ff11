#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on 127.0.0.1 with a port the kernel picks, for the raw-socket test
/// servers. A test server that cannot listen cannot test anything: failing loudly is the point.
func openLoopbackListener(backlog: Int32, reuseAddress: Bool = false, address: String = "127.0.0.1") -> (descriptor: Int32, port: UInt16) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    precondition(listener >= 0, "socket: \(errno)")
    if reuseAddress {
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    }
    let addressText = address
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr(addressText)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    precondition(bound == 0 && listen(listener, backlog) == 0, "bind/listen: \(errno)")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    return (listener, UInt16(bigEndian: address.sin_port))
}

/// A TCP connection to `port` on 127.0.0.1 from a raw socket, or `nil` (with errno) when it
/// cannot be made; the caller closes it.
func connectToLoopback(port: UInt16) -> Int32? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(descriptor)
        return nil
    }
    return descriptor
}

/// The port of a TCP socket's own end (`getsockname`), or with `peer` of the other end
/// (`getpeername`); `nil` when it cannot be read. IPv4 or IPv6: both keep the port, in network
/// order, right after the family.
func socketPort(_ descriptor: Int32, peer: Bool = false) -> UInt16? {
    var address = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            peer ? getpeername(descriptor, $0, &length) : getsockname(descriptor, $0, &length)
        }
    }
    guard named == 0 else { return nil }
    return withUnsafeBytes(of: &address) { UInt16($0[2]) << 8 | UInt16($0[3]) }
}

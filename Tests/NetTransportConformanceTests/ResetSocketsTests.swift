import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NetTestSupport
import Testing

/// The fault suite's leak check for reset connections, shown to see what it looks for: a socket
/// the server reset, its descriptor still held.
@Suite("Reset sockets left open are seen")
struct ResetSocketsTests {
    @Test("a descriptor kept after the server's reset is reported until it is closed")
    func keptDescriptorIsSeen() async throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = FaultServer.shared.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0, "connect: \(errno)")
        let request = Array("GET /reset HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        try #require(send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count)
        // The server resets at once: read(2) fails with ECONNRESET (or sees the end).
        let ended = await offPool { () -> Bool in
            var scratch = [UInt8](repeating: 0, count: 64)
            return read(descriptor, &scratch, scratch.count) <= 0
        }
        #expect(ended)
        #expect(ResetSockets.descriptors().contains(descriptor))
        close(descriptor)
        await ResetSockets.expectNone()
    }
}

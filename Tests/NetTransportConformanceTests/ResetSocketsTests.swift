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
        let descriptor = try #require(connectToLoopback(port: FaultServer.shared.port), "connect: \(errno)")
        let request = Array("GET /reset HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        try #require(send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count)
        // The server resets at once: read(2) fails with ECONNRESET (or sees the end).
        let ended = await offPool { () -> Bool in
            var scratch = [UInt8](repeating: 0, count: 64)
            return read(descriptor, &scratch, scratch.count) <= 0
        }
        #expect(ended)
        // Found by the port the server reset: the kernel keeps it on the reset socket.
        #expect(ResetSockets.descriptors(boundTo: FaultServer.shared.resetClientPorts)[descriptor] != nil)
        close(descriptor)
        await ResetSockets.expectNone()
    }
}

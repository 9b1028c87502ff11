#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import NetAsyncHTTPClient
import NetCore
import NetTestSupport
import NetTransport
import NIOCore
import Testing

/// Which event loop AsyncHTTPClientTransport asks for: its home loop for an exchange that starts
/// while the transport is otherwise idle, any loop while another is in flight.
@Suite("LoopAffinity: one loop for calls made one after another")
struct LoopAffinityTests {
    @Test("idle: the home loop; with one in flight: any loop; idle again once it ended")
    func choice() {
        let affinity = LoopAffinity(group: HTTPClient.defaultEventLoopGroup)
        #expect(affinity.starting() === affinity.home)
        #expect(affinity.starting() == nil, "a second exchange beside the first asked for the home loop")
        affinity.ended()
        #expect(affinity.starting() == nil, "one exchange is still in flight")
        affinity.ended()
        affinity.ended()
        #expect(affinity.exchangesInFlight == 0)
        #expect(affinity.starting() === affinity.home)
    }

    @Test("calls made one after another on a real server: each exchange reports its end, so the next asks for the home loop again")
    func sequentialCalls() async throws {
        let transport = AsyncHTTPClientTransport()
        let server = try await ConformanceServer.shared.baseURL()
        for _ in 0..<5 {
            _ = try await transport.send(NetworkRequest(url: server.appendingPathComponent("status/200")))
            #expect(await eventually(within: .seconds(10)) { transport.exchangesInFlight == 0 })
        }
    }
}
#endif

#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
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
        #expect(affinity.exchangesSentHome == 2)
    }

    @Test("calls made one after another on a real server: each has ended when its caller has the body, and each asks for the home loop")
    func sequentialCalls() async throws {
        let transport = AsyncHTTPClientTransport()
        let server = try await ConformanceServer.shared.baseURL()
        for done in 1...5 {
            _ = try await transport.send(NetworkRequest(url: server.appendingPathComponent("status/200")))
            #expect(transport.exchangesInFlight == 0, "call \(done) was still counted once its caller had the body")
            #expect(transport.exchangesSentHome == done)
        }
    }

    @Test("a call made while another is in flight asks for any loop; the next call alone asks for the home loop again")
    func concurrentCall() async throws {
        let transport = AsyncHTTPClientTransport()
        let server = try await ConformanceServer.shared.baseURL()
        let key = "affinity-\(UUID().uuidString)"
        // Read whole into memory, so on the delegate API; the server holds its second event
        // until the test releases the first.
        let held = Task { try await transport.send(NetworkRequest(url: "\(server.absoluteString)/events/paced?key=\(key)&count=2")) }
        #expect(await eventually(within: .seconds(10)) { transport.exchangesInFlight == 1 })
        #expect(transport.exchangesSentHome == 1)
        _ = try await transport.send(NetworkRequest(url: server.appendingPathComponent("status/200")))
        #expect(transport.exchangesSentHome == 1, "a call beside another asked for the home loop")
        StreamingEvents.shared.release("\(key)-1")
        #expect(try await held.value.head.statusCode == .ok)
        #expect(transport.exchangesInFlight == 0)
        _ = try await transport.send(NetworkRequest(url: server.appendingPathComponent("status/200")))
        #expect(transport.exchangesSentHome == 2)
    }
}
#endif

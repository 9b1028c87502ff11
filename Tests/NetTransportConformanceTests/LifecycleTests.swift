#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// The client's lifecycle: a transport can be created and dropped anywhere, used or not, without a
/// shutdown call and without the crash AsyncHTTPClient gives a client released unshut.
@Suite("AsyncHTTPClientTransport lifecycle")
struct LifecycleTests {
    @Test("Transports created, used, cancelled mid-request and dropped without a shutdown call: no crash")
    func createAndDrop() async throws {
        // (Descriptor counts are not compared here: the other suites run in this process at the
        // same time and open connections of their own.)
        for round in 0..<20 {
            let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 2))
            if round % 2 == 0 {
                let response = try await transport.send(try await TransportConformance.request("/bytes/1000"))
                #expect(response.body.count == 1000)
            }
            if round % 5 == 0 {
                // Cancelled once the server has it: mid-request, not before it is sent.
                let key = UUID().uuidString
                let waiting = try await TransportConformance.request("/delay/5000?key=\(key)")
                let task = Task { try await transport.send(waiting) }
                let arrived = await ConformanceServer.arrived(key)
                #expect(arrived, "the server never received the request")
                task.cancel()
                _ = try? await task.value
            }
        }
        // Still usable afterwards: a new transport gets connections as before.
        #expect(try await AsyncHTTPClientTransport().send(try await TransportConformance.request("/status/204")).head.statusCode == 204)
    }

    @Test("One pool serves many requests with no more connections than its limit")
    func connectionReuse() async throws {
        // AsyncHTTPClient fails a request that waits for a pooled connection longer than the
        // connect timeout; 200 requests on 4 connections took longer than 10 s under
        // ThreadSanitizer, and beside the 1 GiB streaming probes. The pool's limit is the point
        // here, not the wait.
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 4, connectTimeout: TestTiming.scaled(.seconds(60))))
        // A server of this test's own, counting the connections it accepts.
        let connections = ServerConnectionCounter()
        let base = try await SharedLoopbackServer(channelHandlers: { [connections.handler()] }) { ConformanceServer.makeRouter() }.baseURL()
        let request = try NetworkRequest(url: base.absoluteString + "/echo")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask { _ = try await transport.send(request) }
            }
            try await group.waitForAll()
        }
        // Never more than the limit at once, and kept alive: 200 requests on at most 4 connections.
        #expect((1...4).contains(connections.peak), "\(connections.peak) connections open at once")
        #expect(connections.accepted <= 4, "\(connections.accepted) connections for 200 requests")
        #expect(AsyncHTTPClientTransport.Configuration().maximumConnectionsPerHost == 8, "the documented default pool")
    }
}
#endif

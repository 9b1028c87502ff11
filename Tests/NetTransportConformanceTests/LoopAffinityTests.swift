#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetTestSupport
import NetTransport
import NIOCore
import Testing

/// Which event loop AsyncHTTPClientTransport asks for: its home loop for a call read into memory
/// while no other such call is in flight, and for a stream while nothing at all is; otherwise any
/// loop for a call read into memory, and the async API for a stream.
@Suite("LoopAffinity: one loop for calls made one after another")
struct LoopAffinityTests {
    @Test("idle: the home loop; with one in flight: any loop; idle again once it ended")
    func choice() {
        let affinity = LoopAffinity(group: HTTPClient.defaultEventLoopGroup)
        #expect(affinity.starting() === affinity.home)
        #expect(affinity.starting() == nil, "a second exchange beside the first asked for the home loop")
        affinity.ended(.readWhole)
        #expect(affinity.starting() == nil, "one exchange is still in flight")
        affinity.ended(.readWhole)
        affinity.ended(.readWhole)
        #expect(affinity.exchangesInFlight == 0)
        #expect(affinity.starting() === affinity.home)
        #expect(affinity.exchangesSentHome == 2)
    }

    @Test("a stream takes the home loop only when nothing at all is in flight, and does not keep a call read into memory from it")
    func streamChoice() {
        let affinity = LoopAffinity(group: HTTPClient.defaultEventLoopGroup)
        #expect(affinity.startingStream() === affinity.home)
        #expect(affinity.startingStream() == nil, "a second stream beside the first asked for the home loop")
        #expect(affinity.exchangesInFlight == 2, "a stream not given the home loop was not counted")
        #expect(affinity.starting() === affinity.home, "streams in flight sent a call read into memory off the home loop")
        #expect(affinity.starting() == nil, "a second call read into memory beside the first asked for the home loop")
        affinity.ended(.readWhole)
        affinity.ended(.readWhole)
        affinity.ended(.other)
        #expect(affinity.startingStream() == nil, "a stream is still in flight")
        affinity.ended(.other)
        affinity.ended(.other)
        affinity.startingOnAsyncAPI()
        #expect(affinity.startingStream() == nil, "an upload on the async API was in flight")
        affinity.ended(.other)
        affinity.ended(.other)
        #expect(affinity.exchangesInFlight == 0)
        #expect(affinity.startingStream() === affinity.home)
        affinity.ended(.other)
        #expect(affinity.exchangesSentHome == 3)
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
        #expect(await eventually(within: TestTiming.hangGuard) { transport.exchangesInFlight == 1 })
        #expect(transport.exchangesSentHome == 1)
        _ = try await transport.send(NetworkRequest(url: server.appendingPathComponent("status/200")))
        #expect(transport.exchangesSentHome == 1, "a call beside another asked for the home loop")
        StreamingEvents.shared.release("\(key)-1")
        #expect(try await held.value.head.statusCode == .ok)
        #expect(transport.exchangesInFlight == 0)
        _ = try await transport.send(NetworkRequest(url: server.appendingPathComponent("status/200")))
        #expect(transport.exchangesSentHome == 2)
    }

    @Test("a body read as it arrives: on the home loop while the transport is idle, counted until its exchange ends, without sending calls read into memory beside it off that loop; beside another exchange, on the async API, counted until its body ends")
    func streamedCalls() async throws {
        let transport = AsyncHTTPClientTransport()
        let client = NetworkClient(transport: transport)
        let server = try await ConformanceServer.shared.baseURL()
        let key = "affinity-stream-\(UUID().uuidString)"
        // The server writes the first event and holds the second until the test releases it.
        let held = try await client.requestStream(for: "\(server.absoluteString)/events/paced?key=\(key)&count=2")
        #expect(transport.exchangesInFlight == 1)
        #expect(transport.exchangesSentHome == 1)
        let beside = try await client.requestStream(for: server.appendingPathComponent("status/200"))
        #expect(transport.exchangesInFlight == 2, "a stream on the async API was not counted")
        #expect(String(decoding: try await beside.body.collect(upTo: 1 << 10), as: UTF8.self) == "status body")
        #expect(transport.exchangesSentHome == 1, "a stream beside another asked for the home loop")
        #expect(transport.exchangesInFlight == 1, "a stream on the async API was still counted once its body had ended")
        // A call read into memory beside a stream (an event stream left open, say) keeps the home loop.
        _ = try await transport.send(NetworkRequest(url: server.appendingPathComponent("status/200")))
        #expect(transport.exchangesSentHome == 2, "a call read into memory beside a stream was sent off the home loop")
        var events = held.body.makeAsyncIterator()
        #expect(String(decoding: try #require(try await events.next()), as: UTF8.self).contains("event 1"))
        StreamingEvents.shared.release("\(key)-1")
        var rest = Data()
        while let chunk = try await events.next() { rest.append(chunk) }
        #expect(String(decoding: rest, as: UTF8.self).contains("event 2"))
        #expect(transport.exchangesInFlight == 0, "the stream's exchange was still counted once its body had ended")
        let alone = try await client.requestStream(for: server.appendingPathComponent("status/200"))
        _ = try await alone.body.collect(upTo: 1 << 10)
        #expect(transport.exchangesSentHome == 3)
    }
}
#endif

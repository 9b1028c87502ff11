#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetTestSupport
@_spi(NetInternals) import NetTransport
import Testing

/// `AsyncHTTPClientTransport` against the fault suite (`TransportFaults.faults`, the same checks
/// `URLSessionTransportFaultTests` runs). It survives every cut point, so none is left out.
@Suite("Transport faults: AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportFaultTests {
    /// Each fault's transports, once it is over, have no exchange left counted as in flight: every
    /// exchange, on either of AsyncHTTPClient's APIs, reported its end, whether it failed, was cut,
    /// stalled past its deadline or was dropped (a missed end would leave the transport's later
    /// calls without their event loop preference, `LoopAffinity`).
    @Test("AsyncHTTPClientTransport", arguments: TransportFaults.faults + TransportFaults.expectations + TransportFaults.headers
          + TransportFaults.resends)
    func survives(_ fault: TransportFaults.Fault) async throws {
        let made = MadeTransports()
        try await fault.run(TransportFaults.Subject(
            make: { made.keep(AsyncHTTPClientTransport()) },
            makeLimited: { made.keep(AsyncHTTPClientTransport(configuration: .init(responseLimits: $0))) }))
        for transport in made.all {
            #expect(await eventually(within: TestTiming.hangGuard) { transport.exchangesInFlight == 0 },
                    "\(transport.exchangesInFlight) exchanges never reported their end")
            // Each count alone: an exchange ended under the wrong one would leave -1 and +1.
            let counts = transport.exchangesInFlightByCount
            #expect(counts.readWhole == 0 && counts.other == 0, "counts \(counts)")
        }
    }

    @Test("a request that sets its own Accept-Encoding gets a coding the transport does not decode as sent, as curl without --compressed does")
    func ownAcceptEncoding() async throws {
        var request = try TransportFaults.request("/brotli")
        try request.headers.set(name: "Accept-Encoding", value: "br")
        let response = try await AsyncHTTPClientTransport().send(request)
        #expect(response.body == Data("not decoded!".utf8))
        #expect(response.head.headers["Content-Encoding"] == "br")
    }
}

/// The transports a fault made, to look at once it is over.
private final class MadeTransports: Sendable {
    private let made = Locked<[AsyncHTTPClientTransport]>([])

    func keep(_ transport: AsyncHTTPClientTransport) -> AsyncHTTPClientTransport {
        made.withLock { $0.append(transport) }
        return transport
    }

    var all: [AsyncHTTPClientTransport] { made.withLock { $0 } }
}
#endif

import Foundation
import NetCore
import NetTransport
import Testing

/// A transport must not retry (Docs/Architecture.md, "What a transport must and must not do"): a
/// request the server received and closed on without answering is not sent again, on a fresh
/// connection or on one the pool already used, since the server may have acted on it. libcurl
/// (URLSessionTransport on Linux) does send it again once on a reused connection: its runner
/// declares it (`resendsOnReusedConnection`), so the gap is stated and still checked.
extension TransportFaults {
    static let resends: [Fault] = [
        Fault(name: "a POST the server closes on without answering: connection lost, sent once (on a reused connection twice where declared)") { subject in
            let transport = subject.make()
            for reused in [false, true] {
                if reused {  // a connection the pool keeps, to be taken by the POST
                    #expect(try await transport.send(try request("/ok?size=3")).body.count == 3)
                }
                let key = UUID().uuidString
                let post = try NetworkRequest(url: FaultServer.shared.baseURL + "/close?key=\(key)", httpMethod: .post,
                                              body: .data(Data("an order".utf8)), timeout: deadline)
                await #expect {
                    _ = try await transport.send(post)
                } throws: { error in
                    guard case NetworkError.transport(let failure) = error else { return false }
                    return isLost(failure)
                }
                // The POST's first arrival was the second request on its connection when the pool
                // kept the GET's, so the case is the one it claims; a resend comes on a new one.
                let arrivals = FaultServer.shared.events(key)
                let first = reused ? "request 2 on its connection" : "request 1 on its connection"
                let expected = reused && subject.resendsOnReusedConnection ? [first, "request 1 on its connection"] : [first]
                #expect(arrivals == expected, "reused: \(reused)")
                #expect(FaultServer.shared.count(key) == expected.count)
            }
            try await expectNoHalfClosedSockets()
        },
    ]
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NetCore
import NetTestSupport
import NetTransport
import Synchronization
import Testing

/// A TCP server on 127.0.0.1 that accepts connections, reads what comes and never writes a byte:
/// a TLS server stalled before its handshake, or a proxy that never answers. It counts the
/// connections it accepted and those the client has closed since (read returned end of file), so
/// a test can see that a client gave a stalled connection up rather than leaving it open.
final class SilentTCPServer: Sendable {
    let port: UInt16
    private let counts = Mutex<(accepted: Int, closed: Int)>((0, 0))
    /// The client ports of the connections accepted, in order, and of those the client closed.
    private let ports = Mutex<(accepted: [UInt16], closed: Set<UInt16>)>(([], []))

    /// Connections accepted so far.
    var accepted: Int { counts.withLock { $0.accepted } }
    /// Of those, the ones the client has closed.
    var closed: Int { counts.withLock { $0.closed } }
    /// The client ports of the connections accepted so far, in the order they were accepted.
    var acceptedPorts: [UInt16] { ports.withLock { $0.accepted } }
    /// Whether the connection from client port `port` was accepted and then closed by the client.
    func sawClosed(fromPort port: UInt16) -> Bool { ports.withLock { $0.closed.contains(port) } }

    /// Listens at once on `address` ("0.0.0.0": every 127.x.y.z address reaches it); one for each
    /// test, so that what it counts is that test's (its thread lives as long as the test process).
    init(address: String = "127.0.0.1") {
        let listener: Int32
        (listener, port) = openLoopbackListener(backlog: 128, address: address)
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                let peer = socketPort(connection, peer: true) ?? 0
                ports.withLock { $0.accepted.append(peer) }
                counts.withLock { $0.accepted += 1 }
                Thread.detachNewThread { self.readUntilClosed(connection, peer: peer) }
            }
        }
    }

    private func readUntilClosed(_ connection: Int32, peer: UInt16) {
        var scratch = [UInt8](repeating: 0, count: 4_096)
        while read(connection, &scratch, scratch.count) > 0 {}
        close(connection)
        _ = ports.withLock { $0.closed.insert(peer) }
        counts.withLock { $0.closed += 1 }
    }

    /// Whether `transport`, sending `request` here, opened no connection: a marker connection,
    /// opened and closed after the call, is the first this server accepted once it has seen the
    /// marker closed (accept takes connections in the order they came).
    func expectNoConnection(after call: () async -> Void) async throws {
        await call()
        let marker = try #require(connectToLoopback(port: port), "connect: \(errno)")
        let markerPort = try #require(socketPort(marker), "getsockname: \(errno)")
        close(marker)
        #expect(await eventually(within: TestTiming.hangGuard) { self.sawClosed(fromPort: markerPort) })
        #expect(acceptedPorts == [markerPort], "the call opened connections from ports \(acceptedPorts.filter { $0 != markerPort })")
    }

    /// Sends `request` through `transport`, gives the call up (cancels it) once this server has a
    /// new connection from it (a deadline ends a call the same way), and expects every connection
    /// this server accepted to be closed soon after: a stalled peer must not hold the client's
    /// connection for good. `peer` names what this server stands for, in failures.
    func expectGivenUpCallClosesItsConnection(_ request: NetworkRequest, through transport: some Transport, peer: String) async throws {
        let before = accepted
        let call = Task { try await transport.send(request) }
        let reached = await eventually(within: TestTiming.hangGuard) { self.accepted > before }
        try #require(reached, "the call never reached the \(peer)")
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        let closed = await eventually(within: TestTiming.hangGuard) { self.closed == self.accepted }
        #expect(closed, "\(accepted - self.closed) connections to a stalled \(peer) still open")
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A TCP server on 127.0.0.1 that accepts connections, reads what comes and never writes a byte:
/// a TLS server stalled before its handshake, or a proxy that never answers. It counts the
/// connections it accepted and those the client has closed since (read returned end of file), so
/// a test can see that a client gave a stalled connection up rather than leaving it open.
final class SilentTCPServer: Sendable {
    /// One for the process, started on first use.
    static let shared = SilentTCPServer()

    let port: UInt16
    private let counts = Mutex<(accepted: Int, closed: Int)>((0, 0))

    /// Connections accepted so far.
    var accepted: Int { counts.withLock { $0.accepted } }
    /// Of those, the ones the client has closed.
    var closed: Int { counts.withLock { $0.closed } }

    private init() {
        let listener: Int32
        (listener, port) = openLoopbackListener(backlog: 64)
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                counts.withLock { $0.accepted += 1 }
                Thread.detachNewThread { self.readUntilClosed(connection) }
            }
        }
    }

    private func readUntilClosed(_ connection: Int32) {
        var scratch = [UInt8](repeating: 0, count: 4_096)
        while read(connection, &scratch, scratch.count) > 0 {}
        close(connection)
        counts.withLock { $0.closed += 1 }
    }
}

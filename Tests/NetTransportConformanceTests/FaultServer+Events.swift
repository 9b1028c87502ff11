import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The event-stream route of `FaultServer`: `/sse?key=K` plays, on each connection, the next
/// script the test set with `EventScripts.shared.set(K, _:)`, and answers 204 once they run out.
/// It records, under K, `connect <Last-Event-ID or -> <X-Token or ->` for each connection, and
/// `closed-by-client` when the client leaves while a script waits or writes.
extension FaultServer {
    /// One thing a script does on its connection.
    enum EventStep: Sendable {
        /// The response head: status and content type, no length (the body ends at the close).
        case head(status: Int, contentType: String)
        /// These bytes.
        case write([UInt8])
        /// Waits until the test calls `release(K)` (then goes on), or the client closes.
        case hold
        /// Writes a line that never ends: 4 MiB of `x` (64 times the limit the checks set), then
        /// nothing more until the client closes. Bounded so that a transport that cannot pause
        /// libcurl (URLSessionTransport) is not flooded at loopback speed while its cancellation
        /// travels, which starved the other checks sharing FoundationNetworking's one thread.
        case endlessLine
        /// Closes with a reset instead of a FIN.
        case reset

        /// The usual head: 200 `text/event-stream`.
        static let eventStream = head(status: 200, contentType: "text/event-stream")
        /// Text as UTF-8.
        static func text(_ text: String) -> EventStep { .write(Array(text.utf8)) }
    }

    func respondEvents(key: String, headers: [String: String], on connection: Int32) -> Bool {
        let record = { (event: String) in StreamingEvents.shared.record(event, key: key) }
        record("connect \(headers["last-event-id"] ?? "-") \(headers["x-token"] ?? "-")")
        // The request's Accept and Cache-Control, under a key of their own (`K-headers`).
        StreamingEvents.shared.record("\(headers["accept"] ?? "-") | \(headers["cache-control"] ?? "-")", key: key + "-headers")
        guard let script = EventScripts.shared.next(key) else {
            return send(connection, Array("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".utf8)) && false
        }
        for step in script {
            switch step {
            case .head(let status, let contentType):
                guard send(connection, Array("HTTP/1.1 \(status) Fault\r\nContent-Type: \(contentType)\r\nConnection: close\r\n\r\n".utf8)) else { return false }
            case .write(let bytes):
                guard send(connection, bytes) else {
                    record("closed-by-client")
                    return false
                }
            case .hold:
                StreamingEvents.shared.record("holding", key: key)
                guard Self.waitForRelease(key, connection: connection) else {
                    record("closed-by-client")
                    return false
                }
            case .endlessLine:
                let block = [UInt8](repeating: UInt8(ascii: "x"), count: 16_384)
                for _ in 0..<256 {
                    guard send(connection, block) else { break }
                }
                var byte: UInt8 = 0
                while recv(connection, &byte, 1, 0) > 0 {}
                record("closed-by-client")
                return false
            case .reset:
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                return false
            }
        }
        return false  // the body ends at the close
    }
}

/// The scripts `/sse` plays, per key, one per connection, in order.
final class EventScripts: Sendable {
    static let shared = EventScripts()
    private let scripts = Mutex<[String: [[FaultServer.EventStep]]]>([:])

    func set(_ key: String, _ connections: [[FaultServer.EventStep]]) { scripts.withLock { $0[key] = connections } }

    func next(_ key: String) -> [FaultServer.EventStep]? {
        scripts.withLock { scripts in
            guard var remaining = scripts[key], !remaining.isEmpty else { return nil }
            defer { scripts[key] = remaining }
            return remaining.removeFirst()
        }
    }
}

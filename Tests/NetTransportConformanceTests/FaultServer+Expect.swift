import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `Expect: 100-continue` (RFC 9110 §10.1.1), answered as a server that checks a request's head
/// before taking its body would answer it: `/expect?key=K` gets `100 Continue`, then its body is
/// read and answered with its length and checksum; `/expect?answer=417` gets a 417 and a close
/// instead, the body never asked for.
extension FaultServer {
    /// The answer to `/expect` once its body has come: `LENGTH CHECKSUM`.
    func respondExpected(_ received: ArraySlice<UInt8>, on connection: Int32) -> Bool {
        let text = Array("\(received.count) \(Self.checksum(received))".utf8)
        return send(connection, Self.head(200, length: text.count) + text)
    }

    /// Answers a request head that asked `Expect: 100-continue`: false when the connection ends
    /// here. Records under the request's `key` how many body bytes had come before the answer
    /// (a client may send its body without waiting).
    func answerExpectation(_ target: String, bodyBytesSoFar: Int, on connection: Int32) -> Bool {
        let components = URLComponents(string: target)
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
        if let key = query["key"] { StreamingEvents.shared.record("early \(bodyBytesSoFar)", key: key) }
        guard query["answer"] == "417" else {
            return send(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        _ = send(connection, Self.head(417, length: 4, extra: ["Connection: close"]) + Array("nope".utf8))
        // A graceful close, as servers make one: no more to send, and what the client still sends
        // is read and dropped until it closes (closing with unread bytes would reset the connection).
        shutdown(connection, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 65_536)
        var pollDescriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        while poll(&pollDescriptor, 1, 10_000) > 0, read(connection, &scratch, scratch.count) > 0 {}
        return false
    }
}

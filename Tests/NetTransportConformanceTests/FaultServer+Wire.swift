import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What goes on the wire for every route: response heads, whole writes, and waiting for the
/// client to close.
extension FaultServer {
    /// A checksum of a body, order-sensitive: `/upload-once` answers with it, and a test computes
    /// it over what it sent.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(into: 0) { sum, byte in sum = sum &* 1_099_511_628_211 &+ UInt64(byte) }
    }

    /// `HTTP/1.1 200 Fault\r\n`: where the headers begin.
    static let statusLineLength = 20

    static func head(_ status: Int, length: Int, extra: [String] = []) -> [UInt8] {
        let lines = ["HTTP/1.1 \(status) Fault", "Content-Length: \(length)", "Content-Type: application/octet-stream"] + extra
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    func send(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Waits up to `seconds` for the client to close the connection: true if it did.
    func waitForClose(_ connection: Int32, seconds: Int) -> Bool {
        var pollDescriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        var scratch = [UInt8](repeating: 0, count: 4_096)
        let end = Date().addingTimeInterval(TimeInterval(seconds))
        while Date() < end {
            guard poll(&pollDescriptor, 1, 250) >= 0 else { return false }
            if pollDescriptor.revents != 0, read(connection, &scratch, scratch.count) <= 0 { return true }
        }
        return false
    }
}

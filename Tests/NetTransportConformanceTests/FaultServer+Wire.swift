import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What goes on the wire for every route: reading a request, response heads, whole writes, and
/// waiting for the client to close.
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

    /// Reads one request (head and `Content-Length` body); returns its target, its header fields
    /// (names lowercased), its body and any bytes of the next request, or nil when the client closed.
    func readRequest(_ connection: Int32, _ start: [UInt8]) -> (String, [String: String], ArraySlice<UInt8>, [UInt8])? {
        var data = start
        var chunk = [UInt8](repeating: 0, count: 65_536)
        func fill() -> Bool {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { return false }
            data += chunk[0..<count]
            return true
        }
        func headEnd() -> Int? {
            data.indices.dropLast(3).first { data[$0] == 13 && data[$0 + 1] == 10 && data[$0 + 2] == 13 && data[$0 + 3] == 10 }
        }
        var end = headEnd()
        while end == nil {
            guard fill() else { return nil }
            end = headEnd()
        }
        guard let end else { return nil }
        let bodyStart = end + 4
        let head = String(decoding: data[..<end], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let target = lines.first.map { $0.split(separator: " ") }.flatMap { $0.count >= 2 ? String($0[1]) : nil } ?? "/"
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        if headers["expect"]?.lowercased() == "100-continue" {
            guard answerExpectation(target, bodyBytesSoFar: data.count - bodyStart, on: connection) else { return nil }
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        while data.count < bodyStart + length {
            if !fill() { return nil }
        }
        return (target, headers, data[bodyStart..<(bodyStart + length)], Array(data[(bodyStart + length)...]))
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The streaming routes of `FaultServer`, and the events they record for tests to wait on:
///
/// - `/hold?key=K&first=N&size=S`: `Content-Length: S`; writes the first N bytes of the pattern,
///   records `sent-first`, then waits until the test calls `release(K)` (then writes the rest and
///   records `finished`) or the client closes the connection (records `closed-by-client`).
/// - `/flood?key=K&size=S`: writes S bytes of the pattern as fast as the client takes them, on a
///   non-blocking socket: records `blocked` the first time the client's window is full (the client
///   applies backpressure), then `finished`, or `closed-by-client`. With `pace=1` it pauses 1 ms
///   after every MiB, as a server that is not saturating loopback does, and stops (recording
///   `released`) once the test calls `release(K)`, so a failed test leaves no flood behind. With
///   `to=PATH` it is the body of a 302 to PATH.
///
/// The pattern is byte i = i % 251, so a reader can check every byte without holding the body.
extension FaultServer {
    /// Events recorded for `key`, in order.
    func events(_ key: String) -> [String] { StreamingEvents.shared.events(key) }

    /// Waits until `key` has recorded `event`; `false` if it has not within `limit` (a hang).
    func wait(for event: String, key: String, limit: Duration) async -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while clock.now < end {
            if events(key).contains(event) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return events(key).contains(event)
    }

    /// Lets `/hold?key=K` send the rest of its body.
    func release(_ key: String) { StreamingEvents.shared.release(key) }

    func respondStreaming(to path: String, query: [String: String], on connection: Int32) -> Bool {
        let key = query["key"] ?? ""
        let size = Int(query["size"] ?? "") ?? 1_000
        let record = { (event: String) in StreamingEvents.shared.record(event, key: key) }
        // `to=PATH`: the body is a redirect's, to PATH.
        let head = query["to"].map { Self.head(302, length: size, extra: ["Location: \($0)"]) } ?? Self.head(200, length: size)
        guard send(connection, head) else { return false }
        switch path {
        case "/hold":
            let first = min(size, Int(query["first"] ?? "") ?? 1)
            guard Self.writePattern(connection, from: 0, count: first, onBlocked: {}) else { return false }
            record("sent-first")
            guard Self.waitForRelease(key, connection: connection) else {
                record("closed-by-client")
                return false
            }
            guard Self.writePattern(connection, from: first, count: size - first, onBlocked: {}) else {
                record("closed-by-client")
                return false
            }
        default:
            var blocked = false
            let paced = query["pace"] == "1"
            let step = paced ? 1 << 20 : size
            var written = true
            var position = 0
            while written, position < size {
                if paced, StreamingEvents.shared.isReleased(key) {
                    record("released")
                    return false
                }
                let count = min(step, size - position)
                written = Self.writePattern(connection, from: position, count: count) {
                    if !blocked { record("blocked") }
                    blocked = true
                }
                position += count
                if paced { usleep(1_000) }
            }
            guard written else {
                record("closed-by-client")
                return false
            }
        }
        record("finished")
        return true
    }

    /// 65,511 bytes of the pattern: a whole number of its periods.
    private static let patternBlock = [UInt8]((0..<(251 * 261)).map { UInt8($0 % 251) })

    /// Writes `count` bytes of the pattern starting at `offset`, from one 64 KiB buffer; calls
    /// `onBlocked` whenever the socket's send buffer is full. False when the client went away.
    private static func writePattern(_ connection: Int32, from offset: Int, count: Int, onBlocked: () -> Void) -> Bool {
        let block = patternBlock
        var position = offset
        let end = offset + count
        while position < end {
            let start = position % 251
            let length = min(block.count - start, end - position)
            let written = block[start..<(start + length)].withUnsafeBytes {
                Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written > 0 {
                position += written
                continue
            }
            guard written < 0, errno == EAGAIN || errno == EWOULDBLOCK else { return false }
            onBlocked()
            var descriptor = pollfd(fd: connection, events: Int16(POLLOUT), revents: 0)
            guard poll(&descriptor, 1, -1) > 0, descriptor.revents & Int16(POLLERR | POLLHUP) == 0 else { return false }
        }
        return true
    }

    /// Waits for the test's release, or for the client to close (false).
    static func waitForRelease(_ key: String, connection: Int32) -> Bool {
        var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        var scratch = [UInt8](repeating: 0, count: 4_096)
        while !StreamingEvents.shared.isReleased(key) {
            // Wakes every 20 ms to look at the release flag; a close is seen as it happens.
            guard poll(&descriptor, 1, 20) >= 0 else { return false }
            if descriptor.revents != 0, read(connection, &scratch, scratch.count) <= 0 { return false }
        }
        return true
    }
}

/// What the streaming routes recorded, and which holds were released.
final class StreamingEvents: Sendable {
    static let shared = StreamingEvents()
    private let state = Mutex<(events: [String: [String]], released: Set<String>)>(([:], []))

    func record(_ event: String, key: String) { state.withLock { $0.events[key, default: []].append(event) } }
    func events(_ key: String) -> [String] { state.withLock { $0.events[key] ?? [] } }
    func release(_ key: String) { _ = state.withLock { $0.released.insert(key) } }
    func isReleased(_ key: String) -> Bool { state.withLock { $0.released.contains(key) } }
}

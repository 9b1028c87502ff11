import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 that misbehaves on purpose, written on raw sockets because a
/// well-behaved server framework cannot reset, lie in `Content-Length` or stop mid-header. One
/// thread per connection; every route is a fault the transports must survive:
///
/// - `/ok?size=N`: 200 with N bytes, keep-alive (the control).
/// - `/close[?key=K]`: counts an arrival under K and records which request it was on its connection, then closes without a byte. `/reset`: resets (RST) without a byte.
/// - `/cut?size=N&at=K[&reset=1]`: the response of N bytes cut after K bytes of the whole
///   exchange (status line and headers included), by FIN or RST.
/// - `/stall?size=N[&key=K]`: records `arrived` under K, sends the headers, then nothing until the
///   client leaves (recorded as `closed-by-client`, as the streaming routes record theirs).
/// - `/trickle?size=N[&key=K]`: the same, with one byte a second after the headers.
/// - `/storm?key=K&failures=F&status=S[&retry-after=T]`: status S (503 by default) for the key's
///   first F requests, then 200 `ok`; `/count?key=K` says how many requests the key had.
/// - `/dates?key=K&year=Y[&expires=E][&status=S]`: status S (200) with `Date`, `Last-Modified`
///   and `Retry-After` on 6 Nov of year Y and `Expires` on 6 Nov of year E (Y), counted under K.
/// - `/loop[?key=K]`: a redirect to itself, counted under K. `/redirect?location=L`: a 302 to L, as given.
/// - `/gzip-bomb[?chunked=1|declare=N]`: the gzip body set with `setGzipBomb` (`Content-Encoding:
///   gzip`), with its `Content-Length`, chunked, or with `Content-Length: N` (a lie) and a close.
/// - `/latin1-header`: `X-Name: café` with é as the Latin-1 byte 0xE9. `/http09`: a line of text
///   and a close, no status line. `/status-zero`: status 0. `/huge-header?mb=M`: M MB of header fields, then a body.
/// - `/hold` and `/flood`: streamed bodies with events a test can wait for (FaultServer+Streaming.swift).
/// - `/sse?key=K`: each connection plays the next script the test set for K (FaultServer+Events.swift).
/// - `/both-lengths`: `Content-Length: 5` and a chunked body of 13 bytes. `/gzip-cut[?keep=N]`: the
///   first N bytes (half by default) of the gzip body set with `setGzipBomb`, its `Content-Length` theirs. `/brotli`:
///   `Content-Encoding: br` on 12 bytes that are not brotli; `/identity-then-gzip` the same bytes
///   under `identity` and then `gzip`, in two fields.
/// - `/upload-once?key=K`: the key's first request read and closed without a byte; later ones
///   answered with `LENGTH HASH content-length=… transfer-encoding=…` of what arrived.
/// - `/length-short`: `Content-Length: 5` and 13 bytes, kept alive. `/length-long`: claims 100,
///   sends 10 and closes.
/// - `/expect?key=K[&answer=417]`: `Expect: 100-continue` answered (FaultServer+Expect.swift).
final class FaultServer: Sendable {
    static let shared = FaultServer()

    let port: UInt16
    private let listener: Int32
    private let counts = Mutex<[String: Int]>([:])
    private let gzipBomb = Mutex<[UInt8]>([])
    private let started = ContinuousClock.now

    /// Milliseconds since the server started: the counted routes record their requests' arrivals
    /// with it (`arrived N ms`), so a check that fails can tell a slow client from a stalled one.
    var millisecondsSinceStart: Int {
        let elapsed = ContinuousClock.now - started
        return Int(elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    private init() {
        (listener, port) = openLoopbackListener(backlog: 512, reuseAddress: true)
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                Thread.detachNewThread { self.serve(connection) }
            }
        }
    }

    func count(_ key: String) -> Int { counts.withLock { $0[key] ?? 0 } }

    /// How long `/stall` and `/silent` hold a connection the client keeps open: 180 s, a minute
    /// past the tests' hang guard (120 s unscaled), so a check's wait for the client's close ends
    /// first; no longer, since a transport whose deadline is broken ends its call only when the
    /// server gives up. A literal: this file is built into `StreamProbe` too, which does not link
    /// the test support that scales the guard under the sanitizers.
    static let holdSeconds = 180

    /// Sets the gzip body `/gzip-bomb` serves (made by the test with gzip(1); see `TransportFaults`).
    func setGzipBomb(_ bytes: [UInt8]) { gzipBomb.withLock { $0 = bytes } }

    private func serve(_ connection: Int32) {
        var buffered = [UInt8]()
        var position = 0
        defer { close(connection) }
        while let (target, headers, body, leftover) = readRequest(connection, buffered) {
            buffered = leftover
            position += 1
            guard respond(to: target, headers: headers, body: body, position: position, on: connection) else { return }
        }
    }

    /// Answers one request, the `position`th on its connection (1 for the first); false when the
    /// connection must end.
    private func respond(to target: String, headers: [String: String], body received: ArraySlice<UInt8>,
                         position: Int, on connection: Int32) -> Bool {
        let components = URLComponents(string: target)
        let path = components?.path ?? target
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let size = Int(query["size"] ?? "") ?? 1_000
        lazy var body = [UInt8]((0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) })  // lazy: /flood sizes run to gigabytes

        switch path {
        case "/ok":
            return send(connection, Self.head(200, length: size) + body)
        case "/hold", "/flood":
            return respondStreaming(to: path, query: query, on: connection)
        case "/sse":
            return respondEvents(key: query["key"] ?? "", headers: headers, on: connection)
        case "/close":
            if let key = query["key"] {
                counts.withLock { $0[key, default: 0] += 1 }
                StreamingEvents.shared.record("request \(position) on its connection", key: key)
            }
            return false
        case "/reset":
            reset(connection)
            return false
        case "/cut":
            let whole = Self.head(200, length: size) + body
            let at = min(Int(query["at"] ?? "") ?? 0, whole.count)
            _ = send(connection, Array(whole[..<at]))
            if query["reset"] == "1" { reset(connection) }
            return false
        case "/stall":
            StreamingEvents.shared.record("arrived", key: query["key"] ?? "")
            _ = send(connection, Self.head(200, length: size))
            if waitForClose(connection, seconds: Self.holdSeconds) { StreamingEvents.shared.record("closed-by-client", key: query["key"] ?? "") }
            return false
        case "/silent":  // reads the request and never answers (for `holdSeconds`)
            _ = waitForClose(connection, seconds: Self.holdSeconds)
            return false
        case "/trickle":
            let closed = { StreamingEvents.shared.record("closed-by-client", key: query["key"] ?? "") }
            StreamingEvents.shared.record("arrived", key: query["key"] ?? "")
            guard send(connection, Self.head(200, length: size)) else {
                closed()
                return false
            }
            for byte in body {
                guard send(connection, [byte]) else {
                    closed()
                    return false
                }
                // A second between bytes, cut short by the client's close.
                if waitForClose(connection, seconds: 1) {
                    closed()
                    return false
                }
            }
            return true
        case "/storm":
            let key = query["key"] ?? ""
            StreamingEvents.shared.record("arrived \(millisecondsSinceStart) ms", key: key)
            let seen = counts.withLock { counts in
                counts[key, default: 0] += 1
                return counts[key] ?? 0
            }
            let failures = Int(query["failures"] ?? "") ?? 0
            guard seen > failures else {
                let extra = query["retry-after"].map { ["Retry-After: \($0)"] } ?? []
                let status = Int(query["status"] ?? "") ?? 503
                return send(connection, Self.head(status, length: 4, extra: extra) + Array("fail".utf8))
            }
            return send(connection, Self.head(200, length: 2) + Array("ok".utf8))
        case "/dates":
            // Every HTTP-date a client reads, in year Y: a hostile server's 13-digit year.
            let key = query["key"] ?? ""
            counts.withLock { $0[key, default: 0] += 1 }
            let date = "Sun, 06 Nov \(query["year"] ?? "1994") 08:49:37 GMT"
            let expires = "Sun, 06 Nov \(query["expires"] ?? query["year"] ?? "1994") 08:49:37 GMT"
            let fields = ["Date", "Last-Modified", "Retry-After"].map { "\($0): \(date)" } + ["Expires: \(expires)"]
            return send(connection, Self.head(Int(query["status"] ?? "") ?? 200, length: 2, extra: fields) + Array("ok".utf8))
        case "/count":
            let text = Array(String(count(query["key"] ?? "")).utf8)
            return send(connection, Self.head(200, length: text.count) + text)
        case "/loop":
            let key = query["key"] ?? ""
            StreamingEvents.shared.record("arrived \(millisecondsSinceStart) ms", key: key)
            counts.withLock { $0[key, default: 0] += 1 }
            return send(connection, Self.head(302, length: 0, extra: ["Location: /loop" + (key.isEmpty ? "" : "?key=\(key)")]))
        case "/gzip-bomb":
            let bomb = gzipBomb.withLock { $0 }
            if let declared = query["declare"] {  // a lying Content-Length, then a close
                _ = send(connection, Array("HTTP/1.1 200 Fault\r\nContent-Length: \(declared)\r\nContent-Encoding: gzip\r\n\r\n".utf8) + bomb)
                return false
            }
            guard query["chunked"] == "1" else {
                return send(connection, Self.head(200, length: bomb.count, extra: ["Content-Encoding: gzip"]) + bomb)
            }
            var bytes = Array("HTTP/1.1 200 Fault\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            var offset = 0
            while offset < bomb.count {
                let piece = bomb[offset..<min(bomb.count, offset + 16_384)]
                bytes += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
                offset += piece.count
            }
            return send(connection, bytes + Array("0\r\n\r\n".utf8))
        case "/latin1-header":
            // "café" in Latin-1: the é is the single byte 0xE9, obs-text that is not UTF-8.
            let head = Array("HTTP/1.1 200 Fault\r\nContent-Length: 2\r\nX-Name: caf".utf8) + [0xE9] + Array("\r\n\r\nok".utf8)
            return send(connection, head)
        case "/odd-header-values":  // legal: spaces and tabs around values, a tab inside one
            return send(connection, Array("HTTP/1.1 200 Fault\r\nContent-Length: 2\r\nX-Padded: \t  padded \t \r\nX-Inner: a\tb\r\nX-Trailing: v \r\n\r\nok".utf8))
        case "/control-header":  // `?byte=N`: a control character (or DEL) inside a value
            let byte = UInt8(query["byte"] ?? "") ?? 1
            return send(connection, Array("HTTP/1.1 200 Fault\r\nContent-Length: 2\r\nX-Ctl: a".utf8) + [byte] + Array("b\r\n\r\nok".utf8))
        case "/bad-name-header":  // `?kind=`: a field name that is not a token (`at`, `space` before the colon, `utf8`)
            let line = ["space": "X-Bad : v", "utf8": "X-Caf\u{E9}: v"][query["kind"] ?? ""] ?? "X@Bad: v"
            return send(connection, Array("HTTP/1.1 200 Fault\r\nContent-Length: 2\r\n\(line)\r\n\r\nok".utf8))
        case "/http09":
            _ = send(connection, Array("hello, this is not HTTP/1.x\n".utf8))
            return false
        case "/status-zero":
            _ = send(connection, Array("HTTP/1.1 0 Zero\r\nContent-Length: 2\r\n\r\nok".utf8))
            return false
        case "/redirect":
            return send(connection, Self.head(302, length: 0, extra: ["Location: \(query["location"] ?? "/")"]))
        case "/huge-header":
            let megabytes = Int(query["mb"] ?? "") ?? 10
            guard send(connection, Array("HTTP/1.1 200 OK\r\n".utf8)) else { return false }
            let line = Array("X-Filler: \(String(repeating: "a", count: 1_000))\r\n".utf8)
            let block = [UInt8]((0..<64).flatMap { _ in line })
            for _ in 0..<(megabytes * 1_048_576 / block.count) {
                guard send(connection, block) else { return false }
            }
            return send(connection, Array("Content-Length: 2\r\n\r\nok".utf8))
        case "/both-lengths":  // Content-Length and chunked framing at once (RFC 9112 §6.3); `?fresh`: cacheable
            let chunks = Array("d\r\nhello world!!\r\n0\r\n\r\n".utf8)
            let freshness = query["fresh"] == nil ? "" : "Cache-Control: max-age=600\r\n"
            _ = send(connection, Array("HTTP/1.1 200 Fault\r\n\(freshness)Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + chunks)
            return false
        case "/gzip-cut":  // the first `keep` bytes (half by default) of setGzipBomb's body, framed as whole by Content-Length
            let bomb = gzipBomb.withLock { $0 }
            let kept = Array(bomb[..<min(Int(query["keep"] ?? "") ?? bomb.count / 2, bomb.count)])
            return send(connection, Self.head(200, length: kept.count, extra: ["Content-Encoding: gzip"]) + kept)
        case "/brotli":  // a coding neither asked for nor decodable here (the bytes are not brotli)
            return send(connection, Self.head(200, length: 12, extra: ["Content-Encoding: br"]) + Array("not decoded!".utf8))
        case "/identity-then-gzip":  // gzip under identity, in two fields: not what a decoder looking at the first one decodes
            return send(connection, Self.head(200, length: 12, extra: ["Content-Encoding: identity", "Content-Encoding: gzip"]) + Array("not decoded!".utf8))
        case "/length-short":
            return send(connection, Self.head(200, length: 5) + Array("hello world!!".utf8))
        case "/upload-once":
            // The key's first request is read whole and closed without a byte: on a reused
            // connection, a client such as libcurl sends it again on a new one. Later requests are
            // answered with the body's length, its hash and its framing fields as received.
            let key = query["key"] ?? ""
            let seen = counts.withLock { counts -> Int in
                counts[key, default: 0] += 1
                return counts[key] ?? 0
            }
            guard seen > 1 else { return false }
            let framing = ["content-length", "transfer-encoding"].map { "\($0)=\(headers[$0] ?? "none")" }
            let text = Array("\(received.count) \(Self.checksum(received)) \(framing.joined(separator: " "))".utf8)
            return send(connection, Self.head(200, length: text.count) + text)
        case "/expect":
            return respondExpected(received, on: connection)
        case "/length-long":
            _ = send(connection, Self.head(200, length: 100) + Array("0123456789".utf8))
            return false
        default:
            return send(connection, Self.head(404, length: 0))
        }
    }

    /// The client ports of the connections this server reset, for the leak check of
    /// ``ResetSockets``, which looks only at this process's sockets bound to one of them.
    private let resetPorts = Mutex<Set<UInt16>>([])
    var resetClientPorts: Set<UInt16> { resetPorts.withLock { $0 } }

    /// SO_LINGER with a zero timeout makes close(2) send RST instead of FIN.
    private func reset(_ connection: Int32) {
        if let port = socketPort(connection, peer: true) { _ = resetPorts.withLock { $0.insert(port) } }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }
}

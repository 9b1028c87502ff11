import Foundation
import NetCore
import NetTransport
import Testing
#if canImport(NetTestSupport)
import NetTestSupport  // TestTiming
#endif

/// Faults every transport must survive, run against `FaultServer` like `TransportConformance`:
/// each check makes a fresh `Transport` (so its connections and tasks can be accounted for),
/// provokes one fault and then checks what is left: the request ended within its deadline with
/// the expected typed error (or succeeded as the retry policy says), no client socket to the
/// server was left half-closed, and no file was left beside a download's destination. (A refused
/// connection is `TransportConformance`'s check "a refused connection is cannotConnect, at once".)
enum TransportFaults {
    /// The transport under test.
    struct Subject: Sendable {
        /// Makes a fresh transport.
        let make: @Sendable () -> any Transport
        /// Makes a fresh transport with these response limits.
        let makeLimited: @Sendable (ResponseLimits) -> any Transport
        /// A transport that cannot count compressed bytes of a chunked body (libcurl decodes
        /// before Net sees the bytes) holds it to the in-memory limit instead of the ratio.
        var ratioNeedsContentLength = false
        /// FoundationNetworking (Swift 6.3.1, libcurl 7.88) stops the process with "Transfer
        /// completed, but there's no response" when a server closes (FIN) inside the header
        /// block after the status line and before `Content-Length`: libcurl reports success and
        /// Foundation finds no response, and no delegate or option can intercept it. A runner that sets this proves the crash in a child process
        /// instead (see `URLSessionTransportFaultTests`); only those cut points are left out here.
        var crashesOnHeadersCutByClose = false
        /// FoundationNetworking fails the transfer ("Failed writing header") when a header value
        /// holds a byte that is not UTF-8; a runner that sets this expects that typed error instead
        /// of the response (Docs/Linux-notes.md).
        var failsOnNonUTF8HeaderValue = false
        /// libcurl 7.88 ends a gzip body that stops before its gzip stream does as a success (seen
        /// with `curl --compressed` too, in every framing), and Net sees only the decoded bytes,
        /// so it cannot tell; a runner that sets this expects the short body (Docs/Linux-notes.md).
        var deliversTruncatedGzipAsWhole = false
        /// FoundationNetworking reads a 301, 302, 303 or 305–308 to its end, holding the body in
        /// memory, before its delegate (and so Net) learns of the response, and cannot be stopped
        /// meanwhile: a runner that sets this shows what happens in a child process instead
        /// (`URLSessionTransportFaultTests`), since the transfer would hold this process's
        /// URLSession work for as long as it lives (Docs/Linux-notes.md).
        var readsRedirectBodiesWhole = false
        /// libcurl sends a request once more, whatever its method, on a new connection when a
        /// reused one closes before a byte of the answer ("Connection died, retrying a fresh
        /// connect"), though the server may have read it whole: a runner that sets this expects the
        /// second arrival (Docs/Linux-notes.md).
        var resendsOnReusedConnection = false
    }

    /// One fault, named.
    struct Fault: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (Subject) async throws -> Void
        var testDescription: String { name }
    }

    /// The faults' deadline, where the deadline is not what a fault is about: a hang guard only
    /// (``TestTiming/hangGuard``). A fault's typed error (a lost connection, an invalid URL) is
    /// told from this deadline's `timedOut` by its kind; the faults about timing out give their
    /// own short deadlines.
    static let deadline = TestTiming.hangGuard

    static func request(_ target: String, timeout: Duration = TransportFaults.deadline) throws -> NetworkRequest {
        try NetworkRequest(url: FaultServer.shared.baseURL + target, timeout: timeout)
    }

    /// Sends `target`, expecting a transport failure that `expected` accepts, before `within`;
    /// with `streamed` (unless the fault is a timing one: a stream's deadline ends at its head),
    /// streams it too, expecting the same (`expectStreamedFailure`).
    ///
    /// "At once" is proven by the error's kind (a lost connection is not a timeout), and "at the
    /// deadline" by which timer fired (``isTimeout(_:)``), not by the clock. The clock bound only
    /// catches a hang: 30 s past the deadline (a loaded CI run once needed 3.1 s past it for
    /// AsyncHTTPClient to wind a cancelled exchange down, and a full run on a slow VM 11.3 s for
    /// URLSession, while the load probes' child processes held both cores).
    static func expectFailure(
        _ transport: any Transport, _ target: String, timeout: Duration = TransportFaults.deadline, within limit: Duration? = nil,
        notBefore earliest: Duration = .zero, streamed: Bool = true, _ expected: (NetworkError.TransportFailure) -> Bool
    ) async throws {
        let limit = limit ?? timeout + TestTiming.scaled(.seconds(30))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await transport.send(try request(target, timeout: timeout))
            Issue.record("\(target) succeeded with \(response.head.statusCode) and \(response.body.count) bytes")
        } catch let NetworkError.transport(failure) {
            #expect(expected(failure), "\(target): \(failure)")
        }
        #expect(clock.now - start < limit, "\(target) took \(clock.now - start)")
        #expect(clock.now - start >= earliest, "\(target) gave up early, after \(clock.now - start)")
        if streamed { try await expectStreamedFailure(transport, target, timeout: timeout, expected) }
    }

    /// Waits (bounded) until no client socket to the server is half-closed: a transport that
    /// forgets a connection the server closed leaves it in CLOSE_WAIT for ever, so the bound only
    /// has to outlast a transport closing late on a busy machine, and another check's connection
    /// to the same server being closed meanwhile (the scan sees every socket of this process
    /// toward its port).
    static func expectNoHalfClosedSockets() async throws {
        let closed = await eventually(within: TestTiming.hangGuard, every: .milliseconds(50)) {
            await !ClientSockets.states(towardPort: FaultServer.shared.port).contains(ClientSockets.closeWait)
        }
        if closed { return }
        // Which process holds it (`ss -p`), for the record (children inherit no descriptors).
        let sockets = (try? await runProcessOffPool("/usr/bin/env", ["ss", "-tanp", "state", "close-wait"])).map { String(decoding: $0, as: UTF8.self) } ?? ""
        Issue.record("a client socket to the fault server stayed in CLOSE_WAIT for \(TestTiming.hangGuard):\n\(sockets)")
    }

    /// Runs `exchanges` (which sends requests under the keys it returns, made from the key it is
    /// given) until the server has seen one of them arrive, within a minute (stretched under
    /// sanitizers); returns every key used. A deadline can pass before the request is sent: on
    /// URLSession while another suite's 1,000 concurrent requests kept FoundationNetworking busy,
    /// none of five arrived in 8 s. Such a try still proves the timeout, but not what the
    /// transport does with a connection it gave up on, which needs one that reached the server.
    static func untilArrived(_ exchanges: (String) async throws -> [String]) async throws -> [String] {
        let end = ContinuousClock.now + TestTiming.scaled(.seconds(60))
        var keys: [String] = []
        repeat {
            let tried = try await exchanges(UUID().uuidString)
            keys += tried
            if tried.contains(where: { FaultServer.shared.events($0).contains("arrived") }) { break }
        } while ContinuousClock.now < end
        return keys
    }

    /// Waits (bounded, for a hang) until the server has seen the client close the connection of
    /// each of `keys`' requests that reached it, and at least one did: a transport that gave up on
    /// an exchange but kept its socket open fails here. A request that never reached the route
    /// (``untilArrived(_:)``) left no connection to it, and is not held against the transport.
    static func expectClosedByClient(_ keys: [String]) async throws {
        let server = FaultServer.shared
        let arrived = { keys.filter { server.events($0).contains("arrived") } }
        let settled = await eventually(within: TestTiming.hangGuard, every: .milliseconds(5)) {
            !arrived().isEmpty && arrived().allSatisfy { server.events($0).contains("closed-by-client") }
        }
        #expect(settled, "connections still open, or none reached the server: \(keys.map { server.events($0) })")
    }

    /// Waits (bounded, for a hang) until the server of a `/flood` (whose 4 GiB, paced, take far
    /// longer than any check) has seen the client close the connection, and checks it had not
    /// sent the whole body: the client stopped reading, rather than reading on to the end.
    static func expectClosedBeforeTheEnd(_ key: String) async throws {
        #expect(await FaultServer.shared.wait(for: "closed-by-client", key: key, limit: TestTiming.hangGuard),
                "\(FaultServer.shared.events(key))")
        #expect(!FaultServer.shared.events(key).contains("finished"))
    }

    static func isLost(_ failure: NetworkError.TransportFailure) -> Bool {
        if case .connectionLost = failure { return true }
        return false
    }

    /// A timeout from Net's own deadline: URLSession's fallback timer (the deadline plus 5 s)
    /// reports `URLError -1001`, so a transport that left the timing to it fails here, whatever
    /// the clock says.
    static func isTimeout(_ failure: NetworkError.TransportFailure) -> Bool {
        if case .timedOut(let message) = failure { return !message.contains("URLError") }
        return false
    }

    /// A transport failure that `kind` accepts.
    static func failed(_ kind: @escaping (NetworkError.TransportFailure) -> Bool) -> (NetworkError) -> Bool {
        { error in
            if case .transport(let failure) = error { return kind(failure) }
            return false
        }
    }

    /// A response body stopped at one of its limits.
    static func isBodyLimit(_ failure: NetworkError.TransportFailure) -> Bool {
        if case .responseBodyLimitExceeded = failure { return true }
        return false
    }

    /// A download to an existing file that fails at `target` with the failure `expected` names:
    /// the file must keep its contents and nothing may be left beside it. The deadline is the hang
    /// guard unless the fault is a stall (`timeout`): a deadline that ended a slow exchange under
    /// load would be a failure too, and `expected` would not take it for the fault's own.
    static func expectDownloadFailureKeepsDestination(_ transport: any Transport, _ target: String, timeout: Duration = TestTiming.hangGuard,
                                                      _ expected: (NetworkError) -> Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-fault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.bin")
        try Data("the previous, complete download".utf8).write(to: destination)
        let client = NetworkClient(transport: transport)
        do {
            let response = try await client.requestDownload(for: try request(target, timeout: timeout), to: destination)
            Issue.record("\(target): downloaded, \(response.response.statusCode)")
        } catch let error as NetworkError {
            #expect(expected(error), "\(target): \(error)")
        }
        #expect(try Data(contentsOf: destination) == Data("the previous, complete download".utf8), "\(target)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["report.bin"], "\(target)")
    }

    /// Cut points across the whole exchange: inside the status line, just after it, inside the
    /// headers before and after `Content-Length`, just after them, after one body byte, halfway,
    /// one byte short.
    static func cutPoints(size: Int, beforeLength: Bool = true) -> [Int] {
        let head = FaultServer.head(200, length: size).count
        let statusLine = FaultServer.statusLineLength
        return [0, 7] + (beforeLength ? [statusLine, statusLine + 10] : [])
            + [head / 2 + 10, head - 1, head, head + 1, head + size / 2, head + size - 1]
    }

    /// 64 MiB of zeros as gzip (about 65 KB): a ratio near 1,000, made once with gzip(1).
    static let bomb = Task { try await runProcessOffPool("/bin/sh", ["-c", "head -c 67108864 /dev/zero | gzip -c"]) }
    static let bombSize: Int64 = 64 << 20

    static func expectLimit(_ transport: any Transport, _ target: String, to destination: TransportBodyDestination = .memory, _ expected: NetworkError.ResponseBodyLimit) async throws {
        do {
            let response = try await transport.send(try request(target), to: destination, progress: nil)
            Issue.record("\(target): \(response.bodyByteCount) bytes passed the limit \(expected)")
        } catch NetworkError.transport(.responseBodyLimitExceeded(let limit)) {
            #expect(limit == expected, "\(target)")
        }
    }

    /// The faults of `TransportFaults+Bodies` (a body and its framing) and `TransportFaults+Protocol`.
    static let faults: [Fault] = bodyFaults + protocolFaults
}

import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// URLSessionTransport sends every request body as a stream of its own with its `Content-Length`
/// (FoundationNetworking's file source can stop the process when a task stops mid-send, and
/// neither its file nor its `Data` source is rewound for libcurl's resend). A file that changes on
/// the way must fail the upload with a typed error naming it, never pass for a success nor end as
/// a bare timeout; the request goes out framed by its length alone; a resend carries the whole body.
@Suite("URLSessionTransport: request bodies on the wire")
struct URLSessionFileUploadTests {
    static let transport = URLSessionTransport()

    /// Runs `URLSessionFaultProbe upload MODE` against `target` and returns what it printed.
    ///
    /// In a process of its own: Net stops the upload mid-send, which FoundationNetworking's own
    /// file source could answer by stopping the process (`_PauseState.setState`'s `try!`, libcurl
    /// 43; Docs/Linux-notes.md). Net's stream is read in place, so that ending fails the test like
    /// any other.
    func probe(_ mode: String, _ target: String) async throws -> String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("URLSessionFaultProbe").path
        let url = try await ConformanceServer.shared.baseURL().absoluteString + target
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // the crash's text is enough; a backtrace takes seconds
        let output = try await runProcessOffPool(executable, ["upload", mode, url], environment: environment)
        return String(decoding: output, as: UTF8.self)
    }

    @Test("a file that grows while it is sent fails with unreadableBodyFile, even when the server answers", .timeLimit(.minutes(2)))
    func grows() async throws {
        // `/echo` answers once it has the file's declared bytes, before any deadline.
        let output = try await probe("grow", "/echo")
        #expect(output.hasPrefix("error Invalid request: cannot read body file") && output.contains("changed while it was being sent"), "\(output)")
    }

    @Test("a file that shrinks while it is sent fails with unreadableBodyFile as its next piece goes out", .timeLimit(.minutes(2)))
    func shrinks() async throws {
        // Cut 2 MiB past what has gone: more pieces go out, each checking the file; then both
        // sides would wait for bytes that never come. The deadline is an hour and the server never
        // answers, so only the check as pieces go out can end the call within the time limit.
        let key = "upload-\(UUID().uuidString)"
        defer { StreamingEvents.shared.release(key) }
        let output = try await probe("shrink", "/echo?hold=\(key)")
        // Found by the check between pieces, or (when libcurl asks for the next piece first) by
        // the read that comes up short: either way the file's change, typed and named.
        #expect(output.hasPrefix("error Invalid request: cannot read body file")
                && (output.contains("changed while it was being sent") || output.contains("shrank below")), "\(output)")
    }

    @Test("a file emptied as its upload is under way fails with unreadableBodyFile as its next piece is read", .timeLimit(.minutes(3)))
    func emptiedOnTheWay() async throws {
        // Emptied when its first piece has gone: the next read finds the end, and the stream stops
        // the exchange instead of ending a body shorter than its Content-Length.
        let body = ConformanceServer.pattern(count: 4 << 20)
        let file = try TransportConformance.temporaryFile(body)
        defer { try? FileManager.default.removeItem(at: file) }
        let emptied = LockedValue(false)
        // A deadline far past the stream's own failure: ending at it, the call would fail with
        // timedOut, and the file's change would be found only afterwards.
        let request = try await TransportConformance.request("/echo", method: .put, body: .file(file), timeout: .seconds(30))
        let error = await #expect(throws: NetworkError.self) {
            _ = try await Self.transport.send(request) { progress in
                guard progress.direction == .upload, emptied.withLock({ done in defer { done = true }; return !done }) else { return }
                if let handle = try? FileHandle(forUpdating: file) {
                    try? handle.truncate(atOffset: 0)
                    try? handle.close()
                }
            }
        }
        #expect(emptied.withLock { $0 })
        guard case .request(.unreadableBodyFile(let path, let reason))? = error else {
            Issue.record("expected unreadableBodyFile, got \(String(describing: error))")
            return
        }
        #expect(path == file.path && reason.contains("shrank below"), "\(reason)")
    }

    @Test("a body file resent on a new connection, after a reused one closed before answering, goes out whole again")
    func resentAfterDeadConnection() async throws {
        // libcurl sends such a request again and asks for its body from the start; without a new
        // stream it went on from where the dead connection had left it (nothing, here: the
        // server had read it all).
        let transport = URLSessionTransport()  // a pool of its own: the GET's connection is the one reused
        let base = FaultServer.shared.baseURL
        _ = try await transport.send(try NetworkRequest(url: base + "/ok?size=10"))
        let body = ConformanceServer.pattern(count: 3 << 20)
        let file = try TransportConformance.temporaryFile(body)
        defer { try? FileManager.default.removeItem(at: file) }
        let key = "resend-\(UUID().uuidString)"
        let reported = LockedValue([NetworkProgress]())
        let response = try await transport.send(try NetworkRequest(url: base + "/upload-once?key=\(key)", httpMethod: .put, body: .file(file),
                                                                   timeout: TestTiming.hangGuard)) { progress in
            if progress.direction == .upload { reported.withLock { $0.append(progress) } }
        }
        let received = String(decoding: response.body, as: UTF8.self)
        #expect(response.head.statusCode == .ok)
        // Counted from zero again for the resend: never past the body's size, and ending at it.
        let uploads = reported.withLock { $0 }
        #expect(uploads.allSatisfy { $0.completedBytes <= Int64(body.count) && $0.expectedBytes == Int64(body.count) })
        #expect(uploads.last?.completedBytes == Int64(body.count))
        #expect(received == "\(body.count) \(FaultServer.checksum(body)) content-length=\(body.count) transfer-encoding=none")
        #expect(FaultServer.shared.count(key) == 2)
    }

    @Test("a file left alone is sent whole")
    func unchanged() async throws {
        let body = ConformanceServer.pattern(count: 2_000_000)
        let file = try TransportConformance.temporaryFile(body)
        defer { try? FileManager.default.removeItem(at: file) }
        let response = try await Self.transport.send(try await TransportConformance.request("/echo", method: .put, body: .file(file)))
        let echo = try TransportConformance.Echo(response.body)
        #expect(echo.bodyLength == body.count && echo.bodyHash == ConformanceServer.hash(body))
        // Framed by its length alone: FoundationNetworking's stream would be chunked beside it.
        let fields = echo.headers.map { $0.lowercased() }
        #expect(fields.contains("content-length: \(body.count)"))
        #expect(!fields.contains { $0.hasPrefix("transfer-encoding:") || $0.hasPrefix("expect:") }, "\(fields)")
        #expect(!fields.contains { $0.hasSuffix(":") || $0.hasSuffix(": ") }, "a field sent blank: \(fields)")
    }

    @Test("a body from memory resent on a new connection, after a reused one closed before answering, goes out whole again")
    func resentDataAfterDeadConnection() async throws {
        let transport = URLSessionTransport()
        let base = FaultServer.shared.baseURL
        _ = try await transport.send(try NetworkRequest(url: base + "/ok?size=10"))
        let body = ConformanceServer.pattern(count: 500_000)
        let key = "resend-\(UUID().uuidString)"
        let response = try await transport.send(try NetworkRequest(url: base + "/upload-once?key=\(key)", httpMethod: .put, body: .data(body),
                                                                   timeout: TestTiming.hangGuard))
        let received = String(decoding: response.body, as: UTF8.self)
        #expect(received == "\(body.count) \(FaultServer.checksum(body)) content-length=\(body.count) transfer-encoding=none")
    }

    @Test("a POST without a type, from a file or from memory, goes out without one when the transport is used alone")
    func postWithoutType() async throws {
        // The pipeline labels a body application/octet-stream; a transport used on its own sends
        // what it was given, where FoundationNetworking would add a form type to a streamed POST.
        let body = ConformanceServer.pattern(count: 1_500_000)
        let file = try TransportConformance.temporaryFile(body)
        defer { try? FileManager.default.removeItem(at: file) }
        for source in [NetworkRequestBody.file(file), .data(body)] {
            let response = try await Self.transport.exchange(try await TransportConformance.request("/echo", method: .post, body: source), progress: nil)
            let echo = try TransportConformance.Echo(try await response.body.collect())
            #expect(echo.bodyLength == body.count && echo.bodyHash == ConformanceServer.hash(body))
            #expect(!echo.headers.contains { $0.lowercased().hasPrefix("content-type:") }, "\(echo.headers)")
        }
    }
}

import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// URLSessionTransport hands a body file over 1 MiB to FoundationNetworking, which takes its
/// length when the task starts and reads it to its end, and libcurl 7.88 neither stops at that
/// length nor fails a short read: a file that changes on the way must still fail the upload with a
/// typed error naming it, never pass for a success nor end as a bare timeout.
@Suite("URLSessionTransport: body files that change while they are sent")
struct URLSessionFileUploadTests {
    static let transport = URLSessionTransport()

    /// Runs `URLSessionFaultProbe upload MODE` against `target` and returns what it printed.
    ///
    /// In a process of its own: Net stops the upload mid-send, and FoundationNetworking (6.3.1)
    /// can answer that by stopping the process (`_PauseState.setState`'s `try!`, libcurl 43; seen
    /// in 2 of 30 runs of these tests beside two CPU hogs; Docs/Linux-notes.md). A probe stopped
    /// that way proves nothing either way and runs again, up to 5 times; any other ending counts.
    func probe(_ mode: String, _ target: String) async throws -> String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("URLSessionFaultProbe").path
        let url = try await ConformanceServer.shared.baseURL().absoluteString + target
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // the crash's text is enough; a backtrace takes seconds
        for _ in 0..<5 {
            do {
                let output = try await runProcessOffPool(executable, ["upload", mode, url], environment: environment)
                return String(decoding: output, as: UTF8.self)
            } catch let failure as CommandFailed where failure.description.contains("EasyHandle.swift") && failure.description.contains("Code=43") {
                continue  // FoundationNetworking's own crash on a stopped file upload: run again
            }
        }
        Issue.record("the probe was stopped by FoundationNetworking's crash 5 times in a row")
        return ""
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
        #expect(output.hasPrefix("error Invalid request: cannot read body file") && output.contains("changed while it was being sent"), "\(output)")
    }

    @Test("a file of at most 1 MiB is read as the send starts and sent from memory: emptied as its upload is under way, the bytes it had arrive")
    func smallFileFromMemory() async throws {
        // From memory, FoundationNetworking never reads the file ahead, and a stopped upload
        // cannot meet that read (Docs/Linux-notes.md); sent from the file, this change failed it.
        let body = ConformanceServer.pattern(count: 1 << 20)
        let file = try TransportConformance.temporaryFile(body)
        defer { try? FileManager.default.removeItem(at: file) }
        let emptied = LockedValue(false)
        let request = try await TransportConformance.request("/echo", method: .put, body: .file(file))
        let response = try await Self.transport.send(request) { progress in
            guard progress.direction == .upload, emptied.withLock({ done in defer { done = true }; return !done }) else { return }
            if let handle = try? FileHandle(forUpdating: file) {
                try? handle.truncate(atOffset: 0)
                try? handle.close()
            }
        }
        #expect(emptied.withLock { $0 })
        let echo = try TransportConformance.Echo(response.body)
        #expect(echo.bodyLength == body.count && echo.bodyHash == ConformanceServer.hash(body))
    }

    @Test("a file left alone is sent whole")
    func unchanged() async throws {
        let body = ConformanceServer.pattern(count: 2_000_000)
        let file = try TransportConformance.temporaryFile(body)
        defer { try? FileManager.default.removeItem(at: file) }
        let response = try await Self.transport.send(try await TransportConformance.request("/echo", method: .put, body: .file(file)))
        let echo = try TransportConformance.Echo(response.body)
        #expect(echo.bodyLength == body.count && echo.bodyHash == ConformanceServer.hash(body))
    }
}

import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// URLSessionTransport hands a body file over 1 MiB to FoundationNetworking, which takes its length when the
/// task starts and reads it to its end, and libcurl 7.88 neither stops at that length nor fails a
/// short read: a file that changes on the way must still fail the upload with a typed error
/// naming it, never pass for a success nor end as a bare timeout.
@Suite("URLSessionTransport: body files that change while they are sent")
struct URLSessionFileUploadTests {
    static let transport = URLSessionTransport()

    /// Sends a 32 MiB file (sparse: no memory to make it) to `/echo`, running `change` on the file
    /// at the first upload progress report (with the bytes sent by then), and returns what the
    /// send threw. `/echo` holds its answer until `releaseOnChange` lets it go, or the deadline
    /// passes. 32 MiB: loopback's socket buffers can take a few MiB before the first report.
    func upload(timeout: Duration, releaseOnChange: Bool,
                changingItWith change: @escaping @Sendable (FileHandle, _ sent: Int64) throws -> Void) async throws -> NetworkError? {
        let file = try TransportConformance.temporaryFile(Data())
        let sizing = try FileHandle(forWritingTo: file)
        try sizing.truncate(atOffset: 32 << 20)
        try sizing.close()
        defer { try? FileManager.default.removeItem(at: file) }
        let changed = LockedValue(false)
        let key = "upload-\(UUID().uuidString)"
        defer { StreamingEvents.shared.release(key) }
        let request = try await TransportConformance.request("/echo?hold=\(key)", method: .put, body: .file(file), timeout: timeout)
        do {
            let response = try await Self.transport.send(request) { progress in
                guard progress.direction == .upload, changed.withLock({ done in defer { done = true }; return !done }) else { return }
                if let handle = try? FileHandle(forUpdating: file) {
                    try? change(handle, progress.completedBytes)
                    try? handle.close()
                }
                if releaseOnChange { StreamingEvents.shared.release(key) }
            }
            Issue.record("the upload succeeded: \(response.head.statusCode), \(String(decoding: response.body.prefix(80), as: UTF8.self))")
            return nil
        } catch let error as NetworkError {
            #expect(changed.withLock { $0 }, "the file was changed before the send ended")
            return error
        }
    }

    @Test("a file that grows while it is sent fails with unreadableBodyFile, even when the server answers", .timeLimit(.minutes(1)))
    func grows() async throws {
        // Released at once: the server answers once it has the file's bytes, before any deadline.
        let error = try await upload(timeout: .seconds(3_600), releaseOnChange: true) { handle, _ in
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(count: 100_000))
        }
        guard case .request(.unreadableBodyFile(_, let reason))? = error else {
            Issue.record("expected unreadableBodyFile, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("changed while it was being sent"))
    }

    @Test("a file that shrinks while it is sent fails with unreadableBodyFile as its next piece goes out", .timeLimit(.minutes(1)))
    func shrinks() async throws {
        // Cut 2 MiB past what has gone: more pieces go out, each checking the file; then both
        // sides would wait for bytes that never come. The deadline is an hour and the server never
        // answers, so only the check as pieces go out can end the call within the time limit.
        let error = try await upload(timeout: .seconds(3_600), releaseOnChange: false) { handle, sent in
            try handle.truncate(atOffset: UInt64(sent) + (2 << 20))
        }
        guard case .request(.unreadableBodyFile(_, let reason))? = error else {
            Issue.record("expected unreadableBodyFile, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("changed while it was being sent"))
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

#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetAsyncHTTPClient
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// AsyncHTTPClientTransport reads a body file as it sends it, piece by piece: a file that changes
/// size on the way must fail the upload with a typed error, never send a different body under
/// the length it declared.
@Suite("AsyncHTTPClientTransport: body files that change while they are sent")
struct AsyncHTTPClientFileUploadTests {
    static let transport = AsyncHTTPClientTransport()

    /// Sends a 2 MB file to `/echo`, running `change` on the file once the first piece has been
    /// read (the first upload progress report), and returns what the send threw.
    func upload(changingItWith change: @escaping @Sendable (FileHandle) throws -> Void) async throws -> NetworkError? {
        let body = ConformanceServer.pattern(count: 2_000_000)
        let file = try TransportConformance.temporaryFile(body)
        defer { try? FileManager.default.removeItem(at: file) }
        let changed = LockedValue(false)
        // `/echo` holds its answer until the send has ended: AsyncHTTPClient accepts a response
        // that comes while the body is still being sent, which would hide the body's error.
        let key = "upload-\(UUID().uuidString)"
        defer { StreamingEvents.shared.release(key) }
        let request = try await TransportConformance.request("/echo?hold=\(key)", method: .put, body: .file(file))
        do {
            _ = try await Self.transport.send(request) { progress in
                guard progress.direction == .upload, changed.withLock({ done in defer { done = true }; return !done }) else { return }
                guard let handle = try? FileHandle(forUpdating: file) else { return }
                defer { try? handle.close() }
                try? change(handle)
            }
            return nil
        } catch let error as NetworkError {
            #expect(changed.withLock { $0 }, "the file was changed before the send ended")
            return error
        }
    }

    @Test("a file that shrinks while it is sent fails with unreadableBodyFile")
    func shrinks() async throws {
        let error = try await upload { try $0.truncate(atOffset: 300_000) }
        guard case .request(.unreadableBodyFile(_, let reason))? = error else {
            Issue.record("expected unreadableBodyFile, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("shrank below its size of 2000000 bytes"))
    }

    @Test("a file that grows while it is sent fails with unreadableBodyFile")
    func grows() async throws {
        let error = try await upload { handle in
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(count: 100_000))
        }
        guard case .request(.unreadableBodyFile(_, let reason))? = error else {
            Issue.record("expected unreadableBodyFile, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("grew past its size of 2000000 bytes"))
    }
}
#endif

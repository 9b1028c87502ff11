import Foundation
import NetCore

/// Reads a streamed response to its end for the calls that want it whole: into memory, held to
/// the in-memory limit, or written chunk by chunk to a file, so memory stays flat whatever the
/// body's size. Reports download progress as chunks arrive. A file is removed on every failure.
struct BodyCollector: Sendable {
    let destination: TransportBodyDestination
    let limit: Int64?
    let progress: TransportProgressHandler?

    /// Consuming: the response ends here, so the caller's is moved in rather than copied. Inlined
    /// into its callers: one async frame fewer per call (Benchmarks/NOTEBOOK.md, "Fewer async frames").
    @inline(__always)
    func collect(_ response: consuming NetworkStreamResponse) async throws -> TransportResponse {
        let head = response.response
        switch destination {
        case .memory:
            let received = report(for: head)
            // A body already whole needs no async call (one frame fewer per call).
            if let whole = response.body.takeWhole(upTo: limit, received: received) { return TransportResponse(head: head, body: whole) }
            return TransportResponse(head: head, body: try await response.body.collect(upTo: limit, received: received))
        case .file(let url):
            return try await write(response.body, of: head, to: url)
        }
    }

    /// Download progress as the body's bytes are counted; `nil` for a call that reports none.
    private func report(for head: NetworkResponseHead) -> (@Sendable (Int64) -> Void)? {
        progress.map { progress in
            let expected = Self.expectedLength(of: head)
            return { total in progress(NetworkProgress(direction: .download, completedBytes: total, expectedBytes: expected)) }
        }
    }

    /// The length progress reports expect: the `Content-Length` of a body without content coding.
    /// Read only for calls that report progress (most do not), as it parses the header.
    private static func expectedLength(of head: NetworkResponseHead) -> Int64? {
        head.headers["Content-Encoding"] == nil ? head.expectedContentLength : nil
    }

    /// Writes `body` to a new file at `url` as it arrives. A function of its own, so that
    /// reading into memory (most calls) runs in a smaller async frame: frames are allocated from
    /// the attempt's task, anew for every attempt.
    @inline(never)
    private func write(_ body: NetworkResponseBody, of head: NetworkResponseHead, to url: URL) async throws -> TransportResponse {
        let file = try BodyFile.create(at: url)
        let received: Int64
        do {
            received = try await body.write(to: file, from: 0, path: url.path, progress: report(for: head))
        } catch {
            try? file.close()
            BodyFile.remove(url)
            throw error
        }
        do { try file.close() } catch {
            BodyFile.remove(url)
            throw NetworkError.transport(.cannotWriteBody(path: url.path, reason: "\(error)"))
        }
        return TransportResponse(head: head, fileURL: url, bodyByteCount: received)
    }
}

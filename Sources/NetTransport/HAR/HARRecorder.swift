import Foundation
import NetCore

/// Records every exchange of a client to an HTTP Archive (HAR 1.2), the format browsers'
/// developer tools export and read, for debugging or for replaying offline with
/// ``StubTransport/init(replaying:matchingBodies:)``.
///
/// It wraps the transport, so every exchange is an entry of its own: each redirect hop, each
/// retry, streamed bodies as they were read.
///
/// ```swift
/// let recorder = HARRecorder()
/// let client = NetworkClient(transport: recorder.recording(URLSessionTransport()))
/// _ = try await client.requestData(for: "https://example.com/films")
/// try recorder.write(to: URL(fileURLWithPath: "films.har"))
/// ```
///
/// Credentials are redacted as everywhere in Net: sensitive header values (`Authorization`,
/// `Cookie`, `Set-Cookie`, API keys…), secret query values in the URL and the query list, and any
/// of those values echoed in a recorded body. Bodies are recorded as text when they are UTF-8, in
/// base64 otherwise. Memory is bounded: a body over ``maximumBodySize`` is not recorded (the entry
/// says so), and after ``maximumEntries`` entries further exchanges are counted, not kept.
public final class HARRecorder: Sendable {
    /// The most entries kept; later exchanges only add to ``droppedEntryCount``.
    public let maximumEntries: Int
    /// The largest request or response body recorded, in bytes.
    public let maximumBodySize: Int

    private struct State: Sendable {
        var entries: [(order: Int, entry: HARArchive.Entry)] = []
        var started = 0
        var dropped = 0
    }

    private let state = Locked(State())

    /// Creates a recorder keeping up to `maximumEntries` exchanges with bodies up to
    /// `maximumBodySize` bytes (1,000 and 1 MiB by default).
    public init(maximumEntries: Int = 1_000, maximumBodySize: Int = 1 << 20) {
        self.maximumEntries = max(0, maximumEntries)
        self.maximumBodySize = max(0, maximumBodySize)
    }

    /// `transport`, with every exchange recorded here.
    public func recording(_ transport: any Transport) -> any Transport {
        HARRecordingTransport(base: transport, recorder: self)
    }

    /// What was recorded so far, in the order the exchanges started. An exchange whose body is
    /// still being read is not in it yet.
    public var archive: HARArchive {
        HARArchive(entries: state.withLock { $0.entries.sorted { $0.order < $1.order }.map(\.entry) })
    }

    /// How many finished exchanges were not kept because ``maximumEntries`` was reached.
    public var droppedEntryCount: Int {
        state.withLock { $0.dropped }
    }

    /// Writes ``archive`` to `url`, owner-only (0600), replacing any file there atomically.
    public func write(to url: URL) throws {
        try BodyFile.replacePrivately(url, with: try archive.encoded())
    }

    /// The position of an exchange that is starting.
    func nextOrder() -> Int {
        state.withLock { state in
            defer { state.started += 1 }
            return state.started
        }
    }

    /// Keeps a finished exchange, unless the archive is full.
    func add(_ entry: HARArchive.Entry, order: Int) {
        state.withLock { state in
            guard state.entries.count < maximumEntries else {
                state.dropped += 1
                return
            }
            state.entries.append((order, entry))
        }
    }
}

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
/// says so), nor is one that would take the archive's recorded bodies past
/// ``maximumTotalBodySize``; an exchange whose URLs, query list and header fields would take the
/// archive's past ``maximumTotalHeadSize``, and any after ``maximumEntries`` entries, is counted
/// in ``droppedEntryCount``, not kept. A body not recorded replays as a failure that says so,
/// never as an empty body.
public final class HARRecorder: Sendable {
    /// The most entries kept; later exchanges only add to ``droppedEntryCount``.
    public let maximumEntries: Int
    /// The largest request or response body recorded, in bytes.
    public let maximumBodySize: Int
    /// The most bytes of body text the archive keeps in all (base64 counted as written); past it,
    /// entries are kept without their bodies.
    public let maximumTotalBodySize: Int
    /// A budget for the archive's request URLs, query lists, header fields, redirect targets and
    /// entry comments: their bytes, each name–value pair counted with 64 bytes more for what
    /// holding it costs (so a count, near the memory they take, not a measure of it). Once an
    /// exchange would take the archive past it, the archive is full, as after ``maximumEntries``:
    /// that exchange and every one that finishes after it are counted in ``droppedEntryCount``,
    /// not kept (exchanges are kept as they finish, so with several at once one that started
    /// earlier may be among them). A server's redirects can choose these (a `Location` of 80 KB
    /// holds 40,000 query items), so they have a budget of their own; one such server can end a
    /// recording, never grow it past the budget.
    public let maximumTotalHeadSize: Int

    private struct State: Sendable {
        var entries: [(order: Int, entry: HARArchive.Entry)] = []
        var started = 0
        var dropped = 0
        var bodyBytes = 0
        var headBytes = 0
        /// Set once an exchange did not fit ``maximumTotalHeadSize``: nothing more is kept.
        var headsFull = false
    }

    private let state = Locked(State())

    /// Creates a recorder keeping up to `maximumEntries` exchanges with bodies up to
    /// `maximumBodySize` bytes each and `maximumTotalBodySize` in all, and their URLs and header
    /// fields up to `maximumTotalHeadSize` in all (1,000, 1 MiB, 64 MiB and 16 MiB by default:
    /// without the totals, a full archive could hold 2 GiB of bodies, and a server's long
    /// redirect targets over a gigabyte of query items).
    public init(
        maximumEntries: Int = 1_000, maximumBodySize: Int = 1 << 20, maximumTotalBodySize: Int = 64 << 20,
        maximumTotalHeadSize: Int = 16 << 20
    ) {
        self.maximumEntries = max(0, maximumEntries)
        self.maximumBodySize = max(0, maximumBodySize)
        self.maximumTotalBodySize = max(0, maximumTotalBodySize)
        self.maximumTotalHeadSize = max(0, maximumTotalHeadSize)
    }

    /// What an entry's URLs, query list, header fields and redirect target count against
    /// ``maximumTotalHeadSize``.
    static func headSize(of entry: HARArchive.Entry) -> Int {
        let pairs = entry.request.headers + entry.request.queryString + entry.response.headers
        let text = [entry.request.url, entry.response.redirectURL, entry.comment ?? "", entry.response.content.mimeType]
        return pairs.reduce(text.reduce(0) { $0 + $1.utf8.count }) { $0 + $1.name.utf8.count + $1.value.utf8.count + 64 }
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

    /// How many finished exchanges were not kept because ``maximumEntries`` or
    /// ``maximumTotalHeadSize`` was reached.
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

    /// Keeps a finished exchange, unless the archive is full; each of its bodies without its text
    /// when that would take the recorded bodies past ``maximumTotalBodySize``.
    func add(_ recorded: HARArchive.Entry, order: Int) {
        let budget = maximumTotalBodySize
        let note: @Sendable (Int) -> String = { size in "\(HAREntryWriter.notRecordedMarker) \(size) bytes not recorded: the archive's bodies reached \(budget) bytes" }
        let headSize = Self.headSize(of: recorded)
        state.withLock { state in
            if !state.headsFull && state.headBytes + headSize > maximumTotalHeadSize { state.headsFull = true }
            guard state.entries.count < maximumEntries, !state.headsFull else {
                state.dropped += 1
                return
            }
            state.headBytes += headSize
            /// Charges a body's text to the budget; false when it does not fit (an empty one always does).
            func fits(_ text: String?) -> Bool {
                let bytes = text?.utf8.count ?? 0
                guard state.bodyBytes + bytes <= budget else { return false }
                state.bodyBytes += bytes
                return true
            }
            var entry = recorded
            if !fits(entry.request.postData?.text) {
                entry.request.postData?.text = nil
                entry.request.postData?.encoding = nil
                entry.request.postData?.comment = note(entry.request.bodySize)
            }
            if !fits(entry.response.content.text) {
                entry.response.content.text = nil
                entry.response.content.encoding = nil
                entry.response.content.comment = note(entry.response.content.size)
            }
            state.entries.append((order, entry))
        }
    }
}

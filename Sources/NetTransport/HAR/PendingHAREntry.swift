import Foundation
import NetCore

/// An exchange whose response body is still arriving: what was read of it so far, handed to the
/// recorder once, at the body's end, failure or drop, whichever comes first.
final class PendingHAREntry: Sendable {
    private struct Body: Sendable {
        /// `nil` once the body outgrew the recorder's limit.
        var copy: Data? = Data()
        var size = 0
        var finished = false
    }

    private let writer: HAREntryWriter
    private let head: NetworkResponseHead
    private let started: Date
    private let wait: Duration
    private let headArrived: ContinuousClock.Instant
    private let recorder: HARRecorder
    private let order: Int
    private let body = Locked(Body())

    init(writer: HAREntryWriter, head: NetworkResponseHead, started: Date, wait: Duration,
         headArrived: ContinuousClock.Instant, recorder: HARRecorder, order: Int) {
        self.writer = writer
        self.head = head
        self.started = started
        self.wait = wait
        self.headArrived = headArrived
        self.recorder = recorder
        self.order = order
    }

    func append(_ chunk: Data) {
        let limit = writer.maximumBodySize
        body.withLock { body in
            body.size += chunk.count
            if var kept = body.copy.take(), kept.count + chunk.count <= limit {
                kept.append(chunk)
                body.copy = kept
            }
        }
    }

    /// Records the entry, once: `complete` when the body was read to its end, `error` when it
    /// failed, neither when it was dropped unread (the entry says which).
    func finish(complete: Bool = false, error: (any Error)? = nil) {
        guard let (copy, size) = body.withLock({ body -> (Data?, Int)? in
            guard !body.finished else { return nil }
            body.finished = true
            return (body.copy, body.size)
        }) else { return }
        let entry = writer.entry(
            head: head, body: copy, bodySize: size, started: started, wait: wait,
            receive: headArrived.duration(to: .now), complete: complete, error: error)
        recorder.add(entry, order: order)
    }
}

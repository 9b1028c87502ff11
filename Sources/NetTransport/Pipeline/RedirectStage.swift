import Foundation
import NetCore

/// The pipeline stage that follows redirects, for every transport alike: ``RedirectRule`` decides
/// each next request, the 3xx body is discarded (read to its end when short, so the connection can
/// be reused; a longer one dropped, which closes it, once past 64 KiB, one chunk beyond at most), and more than the policy's limit is
/// ``NetworkError/TransportFailure/tooManyRedirects(limit:lastURL:)``.
///
/// It is also where every exchange's body gets its framing check (see ``BodyFraming``), so a
/// transport cannot pass a truncated body off as complete.
struct RedirectStage: Sendable {
    let policy: RedirectPolicy

    /// How much of a 3xx body is read (and thrown away) to keep its connection reusable: a body
    /// still going past this is dropped, after the chunk that crossed it.
    static let drainLimit = 64 << 10

    /// Every transport validates the request it is given, so this stage does not again.
    ///
    /// With `metrics`, each request sent is recorded (as try `retryNumber` of the call), its
    /// transport finding the record as ``ExchangeMetricsRecorder/current``; the final request's
    /// record is returned so the body's end can be noted on it.
    ///
    /// With `alarm` (an attempt run in its caller's task, ``CallDeadline/run(inline:_:)``), each
    /// exchange runs with the alarm bound for it to attach to, and none starts once it has rung:
    /// the caller's task, not cancelled by the deadline, would not stop the loop by itself.
    ///
    /// What does not wait is in synchronous functions: an async function keeps its temporaries
    /// in a frame allocated from the task, and a frame over about 1 KB is a `malloc` of its own
    /// (in an attempt's new task, every time; Benchmarks/NOTEBOOK.md, "Async frames under the slab").
    ///
    /// Inlined into the attempt, with ``step``: one async frame for the attempt and its
    /// redirects (Benchmarks/NOTEBOOK.md, "Fewer async frames").
    @inline(__always)
    func exchange(
        _ request: NetworkRequest, through transport: any Transport, progress: TransportProgressHandler?,
        metrics: CallMetricsRecorder? = nil, retryNumber: Int = 0, alarm: DeadlineAlarm? = nil
    ) async throws -> (response: NetworkStreamResponse, record: ExchangeMetricsRecorder?) {
        var current = try Self.labelled(request)
        var followed = 0
        while true {
            try Task.checkCancellation()
            try alarm?.checkNotRung()
            let record = metrics?.beginExchange(current, retryNumber: retryNumber, redirectNumber: followed)
            switch try await step(current, through: transport, progress: progress, record: record, alarm: alarm,
                                  original: request, followed: followed) {
            case .final(let response):
                return (response, record)
            case .redirect(let next, let body):
                await Self.discard(body)
                followed += 1
                current = next
            }
        }
    }

    /// Without a `Content-Type`, libcurl would label a body application/x-www-form-urlencoded.
    @inline(never)
    private static func labelled(_ request: NetworkRequest) throws -> NetworkRequest {
        guard !request.body.isNone, !request.headers.contains(name: "Content-Type") else { return request }
        var labelled = request
        try labelled.headers.set(name: "Content-Type", value: "application/octet-stream")
        return labelled
    }

    /// One exchange on the transport, recorded in `record` (its transport finds it as
    /// ``ExchangeMetricsRecorder/current``) and with `alarm` bound for it to attach to
    /// (``InlineAttempt``), and what follows it. Both are bound around the exchange only, so that a
    /// task made later in the attempt (by a progress handler, say) does not inherit them; and
    /// bound even when `nil`, as a record or alarm bound further out (a transport whose exchange
    /// calls another's `send`) is not this exchange's. Inlined into ``exchange(_:through:progress:metrics:retryNumber:alarm:)``:
    /// one async frame fewer per request (Benchmarks/NOTEBOOK.md, "Fewer async frames").
    @inline(__always)
    private func step(
        _ request: NetworkRequest, through transport: any Transport, progress: TransportProgressHandler?,
        record: ExchangeMetricsRecorder?, alarm: DeadlineAlarm?, original: NetworkRequest, followed: Int
    ) async throws -> Step {
        let scope = record == nil && alarm == nil ? nil : ExchangeScope(record: record, alarm: alarm)
        let response = try await ExchangeScope.$current.withValue(scope) {
            try await transport.exchange(request, progress: progress)
        }
        record?.received(response.response)
        return try next(after: consume response, of: request, original: original, followed: followed)
    }

    /// What follows a response: it is the call's (its body framed), or a redirect to follow.
    private enum Step {
        case final(NetworkStreamResponse)
        case redirect(NetworkRequest, discarding: NetworkResponseBody)
    }

    /// The step after `response` to `current`, the `followed`-th redirect of `original`.
    ///
    /// Consuming: the response is moved on, not copied (a copy retains each of its references).
    @inline(never)
    private func next(after response: consuming NetworkStreamResponse, of current: NetworkRequest, original: NetworkRequest,
                      followed: Int) throws -> Step {
        response.body = try BodyFraming.checked(response.body, head: response.response, method: current.httpMethod)
        guard case .follow(let limit) = policy,
              let next = try RedirectRule.nextRequest(after: response.response, for: current) else {
            response.originalRequest = original
            return .final(consume response)
        }
        guard followed < limit else {
            throw NetworkError.transport(.tooManyRedirects(limit: limit, lastURL: next.redactedURL))
        }
        return .redirect(next, discarding: response.body)
    }

    /// Reads a short 3xx body to its end so its connection can be reused; a longer one is dropped.
    @inline(never)  // its iterator would take room in the caller's frame
    private static func discard(_ body: NetworkResponseBody) async {
        var drained = 0
        do {
            for try await chunk in body {
                drained += chunk.count
                if drained > drainLimit { return }
            }
        } catch {
            // The redirect is followed whatever became of its body.
        }
    }
}

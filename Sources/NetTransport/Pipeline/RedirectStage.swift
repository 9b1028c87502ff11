import Foundation
import NetCore

/// The pipeline stage that follows redirects, for every transport alike: ``RedirectRule`` decides
/// each next request, the 3xx body is discarded (up to 64 KiB read so the connection can be
/// reused, then dropped, which closes it), and more than the policy's limit is
/// ``NetworkError/TransportFailure/tooManyRedirects(limit:lastURL:)``.
///
/// It is also where every exchange's body gets its framing check (see ``BodyFraming``), so a
/// transport cannot pass a truncated body off as complete.
struct RedirectStage: Sendable {
    let policy: RedirectPolicy

    /// The most bytes of a 3xx body read (and thrown away) to keep its connection reusable.
    static let drainLimit = 64 << 10

    /// Every transport validates the request it is given, so this stage does not again.
    ///
    /// With `metrics`, each request sent is recorded (as try `retryNumber` of the call), its
    /// transport finding the record as ``ExchangeMetricsRecorder/current``; the final request's
    /// record is returned so the body's end can be noted on it.
    func exchange(
        _ request: NetworkRequest, through transport: any Transport, progress: TransportProgressHandler?,
        metrics: CallMetricsRecorder? = nil, retryNumber: Int = 0
    ) async throws -> (response: NetworkStreamResponse, record: ExchangeMetricsRecorder?) {
        var current = request
        if !current.body.isNone, !current.headers.contains(name: "Content-Type") {
            // Without one, libcurl would label the body application/x-www-form-urlencoded.
            try current.headers.set(name: "Content-Type", value: "application/octet-stream")
        }
        var followed = 0
        while true {
            try Task.checkCancellation()
            let record = metrics?.beginExchange(current, retryNumber: retryNumber, redirectNumber: followed)
            var response: NetworkStreamResponse
            if let record {
                response = try await ExchangeMetricsRecorder.$current.withValue(record) { [current] in
                    try await transport.exchange(current, progress: progress)
                }
                record.received(response.response)
            } else {
                response = try await transport.exchange(current, progress: progress)
            }
            response.body = BodyFraming.checked(response.body, head: response.response, method: current.httpMethod)
            guard case .follow(let limit) = policy,
                  let next = try RedirectRule.nextRequest(after: response.response, for: current) else {
                response.originalRequest = request
                return (response, record)
            }
            guard followed < limit else {
                throw NetworkError.transport(.tooManyRedirects(limit: limit, lastURL: next.redactedURL))
            }
            await Self.discard(response.body)
            followed += 1
            current = next
        }
    }

    /// Reads a short 3xx body to its end so its connection can be reused; a longer one is dropped.
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

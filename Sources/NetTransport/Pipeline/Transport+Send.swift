import Foundation
import NetCore

extension Transport {
    /// Sends `request` through Net's pipeline without a session, and reads the whole body:
    /// redirects followed as `redirectPolicy` says, the whole call (redirects and body included)
    /// within the request's ``NetworkRequest/timeout`` or `timeout`, the body in memory (held to
    /// ``responseLimits``' in-memory limit) or written to a file.
    ///
    /// With a file destination the body is complete at that URL when this returns, and nothing
    /// this call wrote is left there when it throws.
    public func send(
        _ request: NetworkRequest,
        to destination: TransportBodyDestination = .memory,
        progress: TransportProgressHandler? = nil,
        redirectPolicy: RedirectPolicy = .follow(limit: 10),
        timeout: Duration = .seconds(60)
    ) async throws -> TransportResponse {
        let responseLimits = responseLimits
        var request = request
        // Read whole into memory as `requestData` reads it, or written to a file as `requestDownload`
        // writes it: a transport may hand such a body over in fewer hand-offs, or keep less of it.
        // Set either way: a request taken from an earlier response may carry the mark.
        request.responseBodyUse = if case .memory = destination { .inMemory } else { .toFile }
        let inline = InlineAttempt.stops(request, on: self as? any DeadlineStoppableTransport)
        return try await CallDeadline(request: request, timeout: timeout, clock: ContinuousClock()).run(inline: inline) { [request] alarm in
            let response = try await RedirectStage(policy: redirectPolicy).exchange(request, through: self, progress: progress,
                                                                                     alarm: alarm).response
            return try await BodyCollector(destination: destination, limit: responseLimits.maximumInMemoryBodySize, progress: progress)
                .collect(response)
        }
    }
}

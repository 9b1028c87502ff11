import Foundation
import NetCore

/// The kind of a session call, which decides what happens to the body and what the response is.
enum SessionCall: Sendable {
    case data
    case download(URL)
    /// An upload; the body replaces the request's own when given.
    case upload(NetworkRequestBody?)
    /// The head, with the body left for the caller to read.
    case stream

    /// Thrown if a call ever produced a response of another kind; the loop below cannot do that.
    static let mismatch = NetworkError.transport(.other("internal error: the session produced a response of the wrong kind"))
}

extension NetworkSession {
    /// A call whose response is read whole.
    func perform(
        _ convertible: any NetworkRequestConvertible, call: SessionCall, progress: NetworkProgressReporter?
    ) async throws -> NetworkSessionInterception {
        try await performCall(convertible, call: call, progress: progress).interception
    }

    /// Every call: the call deadline around the retry loop (see Docs/Architecture.md).
    func performCall(
        _ convertible: any NetworkRequestConvertible, call: SessionCall, progress: NetworkProgressReporter?
    ) async throws -> CallOutcome {
        var request = try convertible.asNetworkRequest()
        if case .upload(let body?) = call { request.body = body }
        let clock = clock
        let deadline = CallDeadline(request: request, timeout: timeout, clock: clock, attemptTimeout: attemptTimeout)
        return try await SessionClock.$current.withValue(clock) {
            try await RetryLedger.$current.withValue(RetryLedger()) {
                try await retryLoop(request, call: call, deadline: deadline, progress: progress)
            }
        }
    }

    /// The seed's protocol as one stage: `interceptRequest` before each attempt, one attempt
    /// through the redirect stage and the transport within the call's deadline,
    /// `interceptResponse` after it, and the retry it asks for (after its backoff, on the
    /// session's clock, and never past the deadline).
    private func retryLoop(
        _ callersRequest: NetworkRequest, call: SessionCall, deadline: CallDeadline, progress: NetworkProgressReporter?
    ) async throws -> CallOutcome {
        var request = callersRequest
        let report: TransportProgressHandler? = if let progress { { event in progress.yield(event) } } else { nil }
        let redirects = RedirectStage(policy: redirectPolicy)
        var retryNumber = 0
        while true {
            try Task.checkCancellation()
            let sent = try await interceptRequest(networkSession: self, originalRequest: request).asNetworkRequest()
            let staging = DownloadStaging(call: call)
            let result: Result<NetworkSessionInterception, any Error>
            var stream: NetworkStreamResponse?
            let transport = transport
            do {
                if case .stream = call {
                    // The deadline covers the head only: a stream may last as long as its reader wants.
                    let response = try await deadline.run { try await redirects.exchange(sent, through: transport, progress: report) }
                    stream = NetworkStreamResponse(response: response.response, body: response.body, originalRequest: callersRequest)
                    result = .success(.data(NetworkDataResponse(data: Data(), response: response.response, originalRequest: callersRequest)))
                } else {
                    let collector = BodyCollector(destination: staging.destination,
                                                  limit: transport.responseLimits.maximumInMemoryBodySize, progress: report)
                    result = .success(try await deadline.run {
                        let response = try await redirects.exchange(sent, through: transport, progress: report)
                        return try await Self.interception(response, call: call, sent: sent, callersRequest: callersRequest, collector: collector)
                    })
                }
            } catch is CancellationError {
                staging.discard()
                throw CancellationError()
            } catch {
                staging.discard()
                result = .failure(error)
            }
            let decision: NetworkSessionInterceptionResult
            do {
                decision = try await interceptResponse(networkSession: self, originalRequest: sent, retryNumber: retryNumber, result: result)
            } catch {
                staging.discard()
                throw error
            }
            let next: any NetworkRequestConvertible
            var delay: Duration?
            switch decision {
            case .nothing:
                return CallOutcome(interception: try staging.complete(result), stream: stream)
            case .retry(let request):
                next = request
            case .retryAfter(let wait, let request):
                next = request
                delay = wait
            }
            guard retryNumber < maximumRetryCount, (deadline.remaining > .zero) else {
                return CallOutcome(interception: try staging.complete(result), stream: stream)
            }
            staging.discard()
            if let delay, delay > .zero { try await deadline.wait(delay) }
            request = try next.asNetworkRequest()
            retryNumber += 1
        }
    }

    private static func interception(
        _ response: NetworkStreamResponse, call: SessionCall, sent: NetworkRequest, callersRequest: NetworkRequest,
        collector: BodyCollector
    ) async throws -> NetworkSessionInterception {
        let collected = try await collector.collect(response)
        switch call {
        case .data, .stream:
            return .data(NetworkDataResponse(data: collected.body, response: collected.head, originalRequest: callersRequest))
        case .download(let destination):
            let url = collected.fileURL ?? destination
            return .download(NetworkDownloadResponse(url: url, response: collected.head, originalRequest: callersRequest))
        case .upload:
            let uploadType: NetworkUploadResponse.UploadType = switch sent.body {
            case .none: .data(Data())
            case .data(let data): .data(data)
            case .file(let url): .file(url)
            case .stream(let stream): .stream(length: stream.length)
            }
            return .upload(NetworkUploadResponse(data: collected.body, response: collected.head,
                                                 originalRequest: callersRequest, uploadType: uploadType))
        }
    }
}

/// What a call produced: what the interceptors saw, and for a stream call the response to read.
struct CallOutcome: Sendable {
    let interception: NetworkSessionInterception
    let stream: NetworkStreamResponse?
}

/// How many retries each interceptor of a ``NetworkClient`` has asked for in the current call, so
/// a budget can count its own (an authentication refresh does not use up ``RetryPolicy``'s).
final class RetryLedger: Sendable {
    /// The current call's ledger.
    @TaskLocal static var current: RetryLedger?
    /// The index of the interceptor being asked about a result.
    @TaskLocal static var asking: Int?

    /// The retries the interceptor being asked has asked for in this call; `fallback` (the
    /// call's retry number) outside a ``NetworkClient`` call.
    static func ownRetries(fallback: Int) -> Int {
        guard let current, let asking else { return fallback }
        return current.retries(of: asking)
    }

    private let counts = Locked<[Int: Int]>([:])

    func retries(of interceptor: Int) -> Int {
        counts.withLock { $0[interceptor, default: 0] }
    }

    func recordRetry(by interceptor: Int) {
        counts.withLock { $0[interceptor, default: 0] += 1 }
    }
}

import Foundation
import NetCore

/// Retries failed attempts with exponential backoff and jitter, within a cap.
///
/// An attempt is retried when its method is idempotent (or ``retriesNonIdempotentMethods`` is
/// set) and it either answered with one of ``retryableStatusCodes`` or failed with a transport
/// error ``retriesTransportFailure`` accepts. The wait before retry *n* (0-based) is
/// `baseDelay × multiplier^n`, capped at ``maximumDelay`` and spread by ±``jitter``; a
/// `Retry-After` header (seconds, or an HTTP-date measured from the response's `Date` plus its
/// `Age` when it has a valid `Date`, else from the system's clock) replaces it when ``honoursRetryAfter`` is set, and
/// a `Retry-After` longer than ``maximumRetryAfter`` means no retry at all.
public struct RetryPolicy: NetworkInterceptor {
    /// Retries per call. Two by default.
    public var maximumRetries: Int
    /// The first wait. 0.5 s by default.
    public var baseDelay: Duration
    /// How much each wait grows. 2 by default.
    public var multiplier: Double
    /// The longest computed wait. 30 s by default.
    public var maximumDelay: Duration
    /// Random spread as a fraction of the wait, in `0...1`: 0.2 means ±20 %. 0.2 by default.
    public var jitter: Double
    /// Statuses worth retrying: 408, 429, 500, 502, 503 and 504 by default.
    public var retryableStatusCodes: HTTPCodes
    /// Also retry POST, PATCH and other non-idempotent methods. Off by default: a repeated POST
    /// may do its work twice.
    public var retriesNonIdempotentMethods: Bool
    /// Follow `Retry-After` on retryable responses. On by default.
    public var honoursRetryAfter: Bool
    /// The longest `Retry-After` worth waiting for. 60 s by default.
    public var maximumRetryAfter: Duration
    /// Which transport failures are worth retrying: by default cannot-connect, timed-out and
    /// connection-lost; never cancellation.
    public var retriesTransportFailure: @Sendable (NetworkError.TransportFailure) -> Bool

    /// The default retryable statuses.
    public static let defaultRetryableStatusCodes: HTTPCodes = [408, 429, 500, 502, 503, 504]

    /// Creates a policy; every parameter has the default described on its property.
    public init(
        maximumRetries: Int = 2,
        baseDelay: Duration = .milliseconds(500),
        multiplier: Double = 2,
        maximumDelay: Duration = .seconds(30),
        jitter: Double = 0.2,
        retryableStatusCodes: HTTPCodes = RetryPolicy.defaultRetryableStatusCodes,
        retriesNonIdempotentMethods: Bool = false,
        honoursRetryAfter: Bool = true,
        maximumRetryAfter: Duration = .seconds(60),
        retriesTransportFailure: @escaping @Sendable (NetworkError.TransportFailure) -> Bool = RetryPolicy.isTransient
    ) {
        self.maximumRetries = max(0, maximumRetries)
        self.baseDelay = max(.zero, baseDelay)
        self.multiplier = max(1, multiplier)
        self.maximumDelay = max(.zero, maximumDelay)
        self.jitter = min(1, max(0, jitter))
        self.retryableStatusCodes = retryableStatusCodes
        self.retriesNonIdempotentMethods = retriesNonIdempotentMethods
        self.honoursRetryAfter = honoursRetryAfter
        self.maximumRetryAfter = maximumRetryAfter
        self.retriesTransportFailure = retriesTransportFailure
    }

    /// Cannot-connect, timed-out and connection-lost failures: the ones a new attempt may fix.
    @Sendable public static func isTransient(_ failure: NetworkError.TransportFailure) -> Bool {
        switch failure {
        case .cannotConnect, .timedOut, .connectionLost: true
        default: false
        }
    }

    /// The backoff before retry `retryNumber` (0 for the first retry), jitter included.
    public func backoff(forRetry retryNumber: Int) -> Duration {
        // The settings are variables: held to the initialiser's ranges again here (a multiplier
        // or jitter that is not a number, a delay past what a clock can wait), so that no value
        // of them can trap.
        let exponent = Double(min(max(0, retryNumber), 60))
        let multiplier = multiplier.isNaN ? 1 : max(1, multiplier)
        let jitter = jitter.isNaN ? 0 : min(1, max(0, jitter))
        let grown = baseDelay.secondsValue * pow(multiplier, exponent)
        let seconds = max(0, min(grown.isNaN ? 0 : grown, maximumDelay.secondsValue, Duration.longestWait.secondsValue))
        let spread = jitter > 0 ? Double.random(in: -jitter...jitter) : 0
        return .milliseconds(Int64((seconds * (1 + spread) * 1000).rounded()))
    }

    /// Decides whether the attempt is retried, and when.
    public func interceptResponse(
        _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
    ) async throws -> NetworkSessionInterceptionResult {
        // Its own retries, not the call's: another interceptor's retry (an authentication
        // refresh) must not use up this budget or lengthen the backoff.
        let retryNumber = RetryLedger.ownRetries(fallback: retryNumber)
        guard retryNumber < maximumRetries,
              retriesNonIdempotentMethods || request.httpMethod.isIdempotent else { return .nothing }
        switch result {
        case .success(let interception):
            guard retryableStatusCodes.contains(interception.statusCode) else { return .nothing }
            if honoursRetryAfter, let value = interception.response.headers["Retry-After"],
               let wait = RetryAfter.delay(from: value, now: Self.serverNow(of: interception.response)) {
                return wait <= maximumRetryAfter ? .retryAfter(wait, request) : .nothing
            }
        case .failure(let error):
            guard case .transport(let failure) = error as? NetworkError, retriesTransportFailure(failure) else { return .nothing }
        }
        return .retryAfter(backoff(forRetry: retryNumber), request)
    }
}

extension RetryPolicy {
    /// When the server answered, by its own clock: the response's valid `Date`, plus its `Age`
    /// (a cache between held it that long); the system's clock without one. A `Retry-After`
    /// date is measured from it, so a client clock that is off does not change the wait.
    package static func serverNow(of response: NetworkResponseHead) -> Date {
        guard let date = response.headers["Date"].flatMap(RetryAfter.httpDate) else { return Date() }
        // RFC 9111's Age is digits only; one too large for an Int is the largest age, as the RFC
        // asks, then capped at a year like every other.
        let age = response.headers["Age"].flatMap { value -> Int? in
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return min(Int(value) ?? .max, 86_400 * 365)
        } ?? 0
        return date.addingTimeInterval(TimeInterval(age))
    }
}

/// Its `interceptRequest` returns at once: its attempts may run in the caller's task.
extension RetryPolicy: RequestInterceptionWithoutWaiting {}

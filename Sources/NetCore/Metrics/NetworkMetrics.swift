#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How one call went: every request it sent (the first, each redirect, each retry) with the times
/// its phases ended, the bytes it moved, why each retry was made, and where the answer came from.
///
/// Every response a session returns carries the call's metrics (`response.metrics`). Times are
/// measured on `ContinuousClock` from the call's start, whatever clock the session's logic runs
/// on. A phase a transport cannot see is absent, never a made-up zero: URLSession on Linux reports
/// no DNS, connect or TLS times, and neither does AsyncHTTPClient's request API
/// (Docs/Observability.md lists what each transport fills).
///
/// ```swift
/// let response = try await client.requestData(for: request)
/// if let firstByte = response.metrics.attempts.last?.time(of: .firstByte) {
///     print("first byte after \(firstByte)")
/// }
/// ```
public struct NetworkMetrics: Sendable, Hashable {
    /// When the call started, by the system's wall clock.
    public var startDate: Date
    /// From the call's start until its response was handed over (for calls that read the body,
    /// after its last byte; for `requestStream`, when the head arrived). `nil` while the call runs.
    public var duration: Duration?
    /// Every request sent, in order: the first, each redirect it led to, each retry.
    public var attempts: [Attempt]
    /// The retries, in order, with the reason for each.
    public var retries: [Retry]

    /// Creates metrics from their parts (a stub's responses carry empty ones).
    public init(startDate: Date = Date(timeIntervalSince1970: 0), duration: Duration? = nil, attempts: [Attempt] = [], retries: [Retry] = []) {
        self.startDate = startDate
        self.duration = duration
        self.attempts = attempts
        self.retries = retries
    }

    /// How many redirects the call followed, over all its attempts.
    public var redirectCount: Int { attempts.reduce(0) { $0 + ($1.redirectNumber > 0 ? 1 : 0) } }

    /// Where the final response came from; `nil` if the call sent nothing.
    public var cacheStatus: NetworkCacheStatus? { attempts.last?.cacheStatus }
}

extension NetworkMetrics {
    /// A point in an attempt's life; an attempt records the time each phase ended.
    public enum Phase: Int, Sendable, Hashable, CaseIterable, Comparable {
        /// A concurrency permit was granted (with `maximumConcurrentRequests`).
        case queued
        /// The host name was resolved.
        case nameLookup
        /// The TCP connection was established.
        case connect
        /// The TLS handshake finished.
        case secureConnect
        /// The last byte of the request body was handed to the connection.
        case requestSent
        /// The response head arrived.
        case firstByte
        /// The response body was read to its end.
        case bodyComplete

        /// curl-like label for reports: `queued`, `dns`, `connect`, `tls`, `request sent`,
        /// `first byte`, `body complete`.
        public var label: String {
            switch self {
            case .queued: "queued"
            case .nameLookup: "dns"
            case .connect: "connect"
            case .secureConnect: "tls"
            case .requestSent: "request sent"
            case .firstByte: "first byte"
            case .bodyComplete: "body complete"
            }
        }

        /// Phases order as they happen in an exchange.
        public static func < (lhs: Phase, rhs: Phase) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// One request on the wire (or answered by the cache) and what became of it.
    public struct Attempt: Sendable, Hashable {
        /// Which try of the call this belongs to: 0 for the first, 1 after one retry…
        public var retryNumber: Int
        /// 0 for a try's first request, 1 for the redirect it led to, and so on.
        public var redirectNumber: Int
        /// The request's method.
        public var method: NetworkHttpMethod
        /// The request's URL, kept whole (reports show ``redactedURL``), with the query keys the
        /// request marked secret.
        package var url: URL
        var secretQueryKeys: Set<String>
        /// When the attempt started, from the call's start.
        public var started: Duration
        /// The time each phase ended, from the call's start; only phases that were seen.
        public var phases: PhaseTimes
        /// The response's status, if a head arrived.
        public var statusCode: HTTPCode?
        /// Why the attempt failed, as a short type name (`timedOut`, `cannotConnect`,
        /// `CancellationError`); `nil` if it did not.
        public var errorType: String?
        /// Whether the answer came from the network or the cache, if a head arrived.
        public var cacheStatus: NetworkCacheStatus?
        /// Request body bytes handed to the connection, where the transport reports them.
        public var requestBodyBytes: Int64?
        /// Response body bytes received (after content decoding), when the body was read by the
        /// session: `nil` for a redirect's discarded body and for `requestStream`.
        public var responseBodyBytes: Int64?

        /// Creates an attempt record; `secretQueryKeys` are redacted from ``redactedURL`` besides
        /// the keys ``NetworkRedaction`` always redacts.
        public init(
            retryNumber: Int, redirectNumber: Int, method: NetworkHttpMethod, url: URL, secretQueryKeys: Set<String> = [],
            started: Duration
        ) {
            self.retryNumber = retryNumber
            self.redirectNumber = redirectNumber
            self.method = method
            self.url = url
            self.secretQueryKeys = secretQueryKeys
            self.started = started
            self.phases = PhaseTimes()
        }

        /// The URL with credentials in its user info and query redacted, the request's own secret
        /// query keys (``NetworkRequest/secretQueryKeys``) included.
        public var redactedURL: String { NetworkRedaction.redactedURL(url, secretQueryKeys: secretQueryKeys) }

        /// When `phase` ended, from the call's start; `nil` if it was not seen.
        public func time(of phase: Phase) -> Duration? { phases[phase] }
    }

    /// When each phase of an attempt ended, from the call's start (`nil`: not seen). A fixed
    /// record rather than a dictionary, so recording costs no allocation.
    public struct PhaseTimes: Sendable, Hashable {
        private var queued, nameLookup, connect, secureConnect, requestSent, firstByte, bodyComplete: Duration?

        /// No phase seen yet.
        public init() {}

        /// When `phase` ended, or `nil`.
        public subscript(phase: Phase) -> Duration? {
            get {
                switch phase {
                case .queued: queued
                case .nameLookup: nameLookup
                case .connect: connect
                case .secureConnect: secureConnect
                case .requestSent: requestSent
                case .firstByte: firstByte
                case .bodyComplete: bodyComplete
                }
            }
            set {
                switch phase {
                case .queued: queued = newValue
                case .nameLookup: nameLookup = newValue
                case .connect: connect = newValue
                case .secureConnect: secureConnect = newValue
                case .requestSent: requestSent = newValue
                case .firstByte: firstByte = newValue
                case .bodyComplete: bodyComplete = newValue
                }
            }
        }

        /// The phases that were seen, in the order they happen, with their times.
        public var seen: [(phase: Phase, time: Duration)] {
            Phase.allCases.compactMap { phase in self[phase].map { (phase: phase, time: $0) } }
        }
    }

    /// A retry the call made.
    public struct Retry: Sendable, Hashable {
        /// The index in ``NetworkMetrics/attempts`` of the last request before the retry.
        public var afterAttempt: Int
        /// What the retried attempt ended with: its status code (`"503"`) or its error type
        /// (`"timedOut"`).
        public var reason: String
        /// Who asked for it: an interceptor's type name in a `NetworkClient`, else `nil`.
        public var requestedBy: String?
        /// The wait asked for before the retry, if any.
        public var delay: Duration?

        /// Creates a retry record.
        public init(afterAttempt: Int, reason: String, requestedBy: String? = nil, delay: Duration? = nil) {
            self.afterAttempt = afterAttempt
            self.reason = reason
            self.requestedBy = requestedBy
            self.delay = delay
        }
    }
}

extension NetworkMetrics.Attempt: CustomReflectable {
    /// Shows the URL redacted, so `dump(metrics)` cannot leak a credential from the query.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "retryNumber": retryNumber, "redirectNumber": redirectNumber, "method": method, "url": redactedURL,
            "started": started, "phases": phases.seen.map { "\($0.phase.label) \($0.time)" }, "statusCode": statusCode as Any, "errorType": errorType as Any,
            "cacheStatus": cacheStatus as Any, "requestBodyBytes": requestBodyBytes as Any,
            "responseBodyBytes": responseBodyBytes as Any,
        ], displayStyle: .struct)
    }
}


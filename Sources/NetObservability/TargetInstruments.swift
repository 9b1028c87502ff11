#if Observability  // the package trait: without it this file compiles to nothing
import Foundation
import Metrics
import NetCore
@_spi(NetInternals) import NetTransport

/// The metric objects of one target (a method and an origin: scheme, host, port), made on its
/// first call and reused by the calls after it, as swift-metrics recommends: a call then neither
/// parses its URL for the dimensions nor allocates a `Meter` and a `Timer` (measured in
/// Benchmarks/NOTEBOOK.md, "Observability: the metric objects kept from call to call").
final class TargetInstruments: Sendable {
    /// The target's dimensions, without the outcome's.
    let dimensions: [(String, String)]
    /// `http.client.active_requests` for the target.
    let activeRequests: Meter
    private let factory: any MetricsFactory
    /// `http.client.request.duration` for each outcome seen, at most ``maximumOutcomes``: a
    /// handful per target, found by comparing, which costs less than hashing.
    private let durations = Locked([(outcome: Outcome, timer: Timer)]())

    /// Distinct outcomes (status codes, error types) kept per target: a server that answers with
    /// ever new status codes gets a `Timer` made per call past this, not a growing table.
    static let maximumOutcomes = 64

    /// What a finished attempt adds to the dimensions.
    struct Outcome: Hashable, Sendable {
        let status: Int?
        let errorType: String?
    }

    init(dimensions: [(String, String)], factory: any MetricsFactory) {
        self.dimensions = dimensions
        self.factory = factory
        activeRequests = Meter(label: HTTPClientConventions.activeRequests, dimensions: dimensions, factory: factory)
    }

    /// The duration timer for an attempt that ended with `status` or `error`.
    func duration(status: HTTPCode?, errorType: String?) -> Timer {
        let outcome = Outcome(status: status.map { Int($0.rawValue) }, errorType: errorType)
        if let timer = durations.withLock({ timers in timers.first { $0.outcome == outcome }?.timer }) { return timer }
        let timer = Timer(label: HTTPClientConventions.requestDuration,
                          dimensions: Self.dimensions(dimensions, with: outcome), factory: factory)
        // Made outside the lock (a factory may take its own); a racing call's twin is dropped.
        return durations.withLock { timers in
            if let kept = timers.first(where: { $0.outcome == outcome }) { return kept.timer }
            if timers.count < Self.maximumOutcomes { timers.append((outcome, timer)) }
            return timer
        }
    }

    /// `dimensions` with an attempt's outcome: its status code, its `error.type`.
    static func dimensions(_ dimensions: [(String, String)], with outcome: Outcome) -> [(String, String)] {
        var dimensions = dimensions
        if let status = outcome.status { dimensions.append((HTTPClientConventions.statusCode, String(status))) }
        if let type = outcome.errorType { dimensions.append((HTTPClientConventions.errorType, type)) }
        return dimensions
    }

    /// The origin of `url` as it is spelled (`scheme://authority`), the part of the URL its
    /// dimensions come from, and whether the URL is `plain`: no query or fragment after its path
    /// (a query may carry a token, so only a plain URL is kept whole). `nil` when the authority
    /// carries credentials (never kept in a table) or the URL has none.
    static func origin(of url: URL) -> (origin: Substring, plain: Bool)? {
        var text = url.absoluteString
        // The bytes scanned as a buffer: String's generic collection methods cost more than the
        // rest of the lookup together.
        let found = text.withUTF8 { bytes -> (end: Int, plain: Bool)? in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 2 < bytes.count,
                  bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else { return nil }
            var end = colon + 3
            while end < bytes.count {
                switch bytes[end] {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"):
                    let plain = !bytes[end...].contains { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
                    return (end, plain)
                case UInt8(ascii: "@"): return nil
                default: end += 1
                }
            }
            return (end, true)
        }
        guard let found else { return nil }
        return (text[..<text.utf8.index(text.startIndex, offsetBy: found.end)], found.plain)
    }
}
#endif

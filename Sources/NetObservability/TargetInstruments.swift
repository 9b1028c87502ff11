#if Observability  // the package trait: without it this file compiles to nothing
import Foundation
import Metrics
import NetCore
@_spi(NetInternals) import NetTransport

/// The metric objects of one target (a method and an origin, ``InstrumentTable``'s key), made on its
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
    struct Outcome: Equatable, Sendable {
        /// ``HTTPClientConventions/statusValue(_:)``.
        let status: String?
        let errorType: String?
    }

    init(dimensions: [(String, String)], factory: any MetricsFactory) {
        self.dimensions = dimensions
        self.factory = factory
        activeRequests = Meter(label: HTTPClientConventions.activeRequests, dimensions: dimensions, factory: factory)
    }

    /// The duration timer for an attempt that ended with `status` or `error`.
    func duration(status: HTTPCode?, errorType: String?) -> Timer {
        let outcome = Outcome(status: status.map(HTTPClientConventions.statusValue), errorType: errorType)
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
        if let status = outcome.status { dimensions.append((HTTPClientConventions.statusCode, status)) }
        if let type = outcome.errorType { dimensions.append((HTTPClientConventions.errorType, type)) }
        return dimensions
    }
}
#endif

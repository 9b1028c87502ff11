#if Observability  // the package trait: without it this file compiles to nothing
import Foundation
import Metrics
import NetCore
@_spi(NetInternals) import NetTransport

/// Every target's ``TargetInstruments``, made by the metrics factory in use: a table of at most
/// ``maximumTargets`` entries, emptied when the factory's type changes (`MetricsSystem`
/// bootstrapped after the first calls: swift-metrics allows one bootstrap, so a new factory is
/// one of a new type). Past its size, or for a URL whose authority carries credentials (never kept
/// here), a call's instruments are made for that call alone, as if there were no table.
final class InstrumentTable: Sendable {
    private struct Key: Hashable, Sendable {
        let method: String
        let origin: Substring
    }

    private struct State: Sendable {
        var factory: ObjectIdentifier?
        var targets: [Key: TargetInstruments] = [:]
        /// The URL and method of the call before, with their instruments: most calls go where
        /// the one before went, and comparing URLs costs less than finding the origin and hashing.
        var recent: (url: URL, method: String, instruments: TargetInstruments)?
    }

    /// Distinct targets kept: an application calls a handful of hosts; a crawler that calls
    /// thousands gets per-call instruments past this, not a growing table.
    static let maximumTargets = 256

    private let state = Locked(State())

    /// The instruments of `request`'s target, made by `factory`.
    func instruments(for request: NetworkRequest, factory: any MetricsFactory) -> TargetInstruments {
        // The type, not the instance: telling a class instance from a value needs a dynamic cast,
        // which cost more than the table saves.
        let identity = ObjectIdentifier(type(of: factory))
        let url = request.url
        let method = request.httpMethod.rawValue
        let recent = state.withLock { state -> TargetInstruments? in
            if state.factory != identity {
                state.factory = identity
                state.targets.removeAll()
                state.recent = nil
            }
            guard let recent = state.recent, recent.method == method, recent.url == url else { return nil }
            return recent.instruments
        }
        if let recent { return recent }
        guard let origin = TargetInstruments.origin(of: url) else {
            return Self.make(for: request, factory: factory)
        }
        let key = Key(method: method, origin: origin)
        if let found = state.withLock({ state -> TargetInstruments? in
            guard state.factory == identity, let found = state.targets[key] else { return nil }
            state.recent = (url, method, found)
            return found
        }) {
            return found
        }
        let made = Self.make(for: request, factory: factory)
        // The origin copied out of the URL's string, so that the table does not keep whole URLs.
        let stored = Key(method: method, origin: Substring(String(origin)))
        return state.withLock { state in
            guard state.factory == identity else { return made }
            if let kept = state.targets[stored] { return kept }
            guard state.targets.count < Self.maximumTargets else { return made }
            state.targets[stored] = made
            state.recent = (url, method, made)
            return made
        }
    }

    private static func make(for request: NetworkRequest, factory: any MetricsFactory) -> TargetInstruments {
        TargetInstruments(dimensions: HTTPClientConventions.dimensions(of: request), factory: factory)
    }
}
#endif

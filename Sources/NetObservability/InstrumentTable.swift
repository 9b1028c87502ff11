#if Observability  // the package trait: without it this file compiles to nothing
import Foundation
import Metrics
import NetCore
@_spi(NetInternals) import NetTransport

/// Every target's ``TargetInstruments``, per metrics factory: a table of at most
/// ``maximumTargets`` entries, all factories together. A factory is told by its instance, not its
/// type: swift-metrics binds factories per task (`withMetricsFactory`), so two factories of one
/// type can be in use at once, and neither may record into the other's objects. An entry holds
/// its factory, so an instance's identity is never reused while its entries live; when the table
/// is full and holds other factories' entries, those are dropped (a test suite binds a factory
/// per test, and the table must not keep them all). A factory that is a value is never entered
/// (its identity is its box's, alive only for the call); past the table's size, for a value
/// factory and for a URL whose authority carries credentials, a call's instruments are made for
/// that call alone, as if there were no table.
final class InstrumentTable: Sendable {
    private struct Key: Hashable, Sendable {
        let factory: ObjectIdentifier
        let method: String
        let origin: Substring
    }

    /// The call before: its factory, URL and method, with their instruments. Most calls go where
    /// the one before went, and comparing URLs costs less than finding the origin and hashing.
    /// Only a URL with no query or fragment is kept here (a query may carry a token).
    private struct Recent: Sendable {
        let factory: ObjectIdentifier
        let url: URL
        let method: String
        let instruments: TargetInstruments
    }

    private struct State: Sendable {
        var targets: [Key: TargetInstruments] = [:]
        var recent: Recent?
    }

    /// Distinct targets kept: an application calls a handful of hosts; a crawler that calls
    /// thousands gets per-call instruments past this, not a growing table.
    static let maximumTargets = 256

    private let state = Locked(State())

    /// The instruments of `request`'s target, made by `factory`, which may differ from call to
    /// call (`MetricsSystem.factory`). Its box, for a value factory, is held for the lookup: the
    /// box's address identifies it, and no other object may take that address meanwhile.
    func instruments(for request: NetworkRequest, factory: any MetricsFactory) -> TargetInstruments {
        let object = factory as AnyObject
        return withExtendedLifetime(object) { instruments(for: request, factory: factory, identity: ObjectIdentifier(object)) }
    }

    /// The instruments of `request`'s target, made by `factory`, the one factory this table is
    /// ever asked with, identified once as `identity` (a cast, taken when the interceptor is made).
    func instruments(for request: NetworkRequest, factory: any MetricsFactory, identity: ObjectIdentifier) -> TargetInstruments {
        let url = request.url
        let method = HTTPClientConventions.methodValue(request.httpMethod)  // one slot for every `_OTHER`
        let recent = state.withLock { state -> TargetInstruments? in
            guard let recent = state.recent, recent.factory == identity, recent.method == method, recent.url == url else { return nil }
            return recent.instruments
        }
        if let recent { return recent }
        guard let (origin, plain) = Self.origin(of: url) else { return Self.make(for: request, factory: factory) }
        let key = Key(factory: identity, method: method, origin: origin)
        if let found = state.withLock({ state -> TargetInstruments? in
            guard let found = state.targets[key] else { return nil }
            if plain { state.recent = Recent(factory: identity, url: url, method: method, instruments: found) }
            return found
        }) {
            return found
        }
        let made = Self.make(for: request, factory: factory)
        // Checked only here, on a miss: the cast costs more than the rest of a lookup.
        guard type(of: factory) is AnyClass else { return made }
        // The origin copied out of the URL's string, so that the table does not keep whole URLs.
        let stored = Key(factory: identity, method: method, origin: Substring(String(origin)))
        return state.withLock { state in
            if let kept = state.targets[stored] { return kept }
            // Full, and some entries are another factory's: only this factory's stay. (Only a miss
            // on a full table looks, so a table of one factory is never scanned on a hit.)
            if state.targets.count >= Self.maximumTargets, state.targets.keys.contains(where: { $0.factory != identity }) {
                state.targets = state.targets.filter { $0.key.factory == identity }
                if state.recent?.factory != identity { state.recent = nil }
            }
            guard state.targets.count < Self.maximumTargets else { return made }
            state.targets[stored] = made
            if plain { state.recent = Recent(factory: identity, url: url, method: method, instruments: made) }
            return made
        }
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

    private static func make(for request: NetworkRequest, factory: any MetricsFactory) -> TargetInstruments {
        TargetInstruments(dimensions: HTTPClientConventions.dimensions(of: request), factory: factory)
    }
}
#endif

import Foundation
import NetCore

/// How old a stored response is and how long it stays fresh (RFC 9111 §4.2), from its headers and
/// the times the request was sent and the response received.
struct CacheFreshness: Sendable, Hashable {
    /// How long the response is fresh after it was generated.
    let lifetime: Duration
    /// How old the response was when it was received, with the network's delay added (§4.2.3).
    let initialAge: Duration
    /// When the response was received.
    let responseTime: Date

    /// Heuristic lifetimes are capped (RFC 9111 §4.2.2 leaves the fraction and the cap to us).
    static let heuristicFraction = 0.1
    static let heuristicCap = Duration.seconds(24 * 60 * 60)

    /// The longest lifetime or age kept, about 31,700 years: beyond any HTTP-date (year 9999), and
    /// far enough from `Duration`'s limits that the sums below cannot overflow, whatever a storage
    /// (a file anyone could have edited, or the user's own) hands back.
    static let longest = Duration.longestWait
    static let longestSeconds = longest.secondsValue

    init(lifetime: Duration, initialAge: Duration, responseTime: Date) {
        self.lifetime = min(max(lifetime, .zero), Self.longest)
        self.initialAge = min(max(initialAge, .zero), Self.longest)
        self.responseTime = responseTime
    }

    init(headers: NetworkHeaders, cacheControl: CacheControl, requestTime: Date, responseTime: Date) {
        self.responseTime = responseTime
        let date = headers["Date"].flatMap(RetryAfter.httpDate) ?? responseTime
        if let maxAge = cacheControl.maxAge {
            lifetime = maxAge
        } else if let expires = headers["Expires"] {
            // An invalid Expires (such as "0") means already expired (§5.3).
            let expiry = RetryAfter.httpDate(expires) ?? .distantPast
            lifetime = Self.lifetime(expiry.timeIntervalSince(date))
        } else if let lastModified = headers["Last-Modified"].flatMap(RetryAfter.httpDate) {
            lifetime = min(Self.lifetime(date.timeIntervalSince(lastModified) * Self.heuristicFraction), Self.heuristicCap)
        } else {
            lifetime = .zero
        }
        let ageValue = headers["Age"].flatMap { CacheControl.seconds($0.trimmingCharacters(in: .whitespaces)) } ?? .zero
        let apparentAge = Self.age(responseTime.timeIntervalSince(date))
        let responseDelay = Self.age(responseTime.timeIntervalSince(requestTime))
        initialAge = max(apparentAge, ageValue + responseDelay)
    }

    /// The response's age at `now` (§4.2.3's current_age).
    func age(at now: Date) -> Duration {
        initialAge + Self.age(now.timeIntervalSince(responseTime))
    }

    /// An interval between two dates as a lifetime, from zero to ``longest``; one that is not a
    /// number counts as none.
    private static func lifetime(_ interval: TimeInterval) -> Duration {
        interval.isNaN ? .zero : clamped(interval)
    }

    /// An interval between two dates as an age, from zero to ``longest``; one that is not a number
    /// (a stored date that is not one) counts as the longest, so that such an entry reads as stale
    /// rather than as just received.
    private static func age(_ interval: TimeInterval) -> Duration {
        interval.isNaN ? longest : clamped(interval)
    }

    private static func clamped(_ interval: TimeInterval) -> Duration {
        .seconds(min(max(interval, 0), longestSeconds))
    }

    /// Whether the response is fresh at `now`.
    func isFresh(at now: Date) -> Bool {
        lifetime > age(at: now)
    }

    /// How long past its lifetime the response is at `now` (zero while fresh).
    func staleness(at now: Date) -> Duration {
        max(.zero, age(at: now) - lifetime)
    }
}

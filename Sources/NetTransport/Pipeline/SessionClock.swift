import Foundation

/// The session's clock during a call, for the parts of the pipeline that are created before any
/// session and must still measure on its clock (an ``AuthenticationInterceptor``'s refresh window).
enum SessionClock {
    @TaskLocal static var current: (any Clock<Duration>)?
}

/// A moment read on some clock, which can later say how long ago it was on that same clock: an
/// `any Clock` cannot name its instant type, so the reading keeps the clock with it.
struct ClockReading: Sendable {
    /// `ContinuousClock` (nearly every session) keeps its reading as it is; any other clock keeps
    /// a closure over its own instant, which costs an allocation per reading.
    private enum Start: Sendable {
        case continuous(ContinuousReading)
        case other(@Sendable () -> Duration)
    }

    private let start: Start

    /// Reads `clock` now.
    init(_ clock: any Clock<Duration>) {
        if clock is ContinuousClock {
            self.init(ContinuousReading.now)
        } else {
            self.init(start: .other(Self.reading(clock)))
        }
    }

    /// A reading of the continuous clock taken earlier.
    init(_ reading: ContinuousReading) {
        self.init(start: .continuous(reading))
    }

    private init(start: Start) {
        self.start = start
    }

    /// How long ago the reading was taken.
    var elapsed: Duration {
        switch start {
        case .continuous(let reading): reading.elapsed
        case .other(let age): age()
        }
    }

    private static func reading<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}

/// Wall-clock time that advances with `clock`: the date when it was made, plus the time `clock`
/// has measured since. With `ContinuousClock` it is `Date()` (without its jumps); with a test's
/// manual clock, HTTP freshness can be checked without sleeping.
struct ClockedDate: Sendable {
    private let start: Date
    private let reading: ClockReading

    init(_ clock: any Clock<Duration>) {
        start = Date()
        reading = ClockReading(clock)
    }

    /// Now, on the clock.
    func now() -> Date {
        let (seconds, attoseconds) = reading.elapsed.components
        return start.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }
}

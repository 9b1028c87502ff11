import Testing
@testable import NetTransport

/// The session's reading of `ContinuousClock`, taken without the clock's own types.
@Suite struct ContinuousReadingTests {
    /// `ContinuousClock`'s time since its epoch, in nanoseconds.
    private func clockNanoseconds() -> Int64 {
        let clock = ContinuousClock()
        let (seconds, attoseconds) = (clock.now - clock.systemEpoch).components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    @Test("a reading lies between two of ContinuousClock's own, taken before and after it")
    func agreesWithContinuousClock() {
        for _ in 0..<1_000 {
            let before = clockNanoseconds()
            let reading = ContinuousReading.now
            let after = clockNanoseconds()
            #expect(before <= reading.nanoseconds && reading.nanoseconds <= after)
        }
    }

    @Test("elapsed counts from the reading, as ContinuousClock measures it: within the clock's own spans around it")
    func elapsedIsMeasuredOnTheSameClock() {
        let outerStart = ContinuousClock.now
        let reading = ContinuousReading.now
        let innerStart = ContinuousClock.now
        var spin = 0
        while innerStart.duration(to: .now) < .milliseconds(2) { spin += 1 }
        let inner = innerStart.duration(to: .now)
        let elapsed = reading.elapsed
        let outer = outerStart.duration(to: .now)
        // Both bounds are exact whatever the machine's load: the reading and its elapsed time are
        // taken between the outer span's ends, and around the inner span's.
        #expect(inner <= elapsed, "spun \(spin) times")
        #expect(elapsed <= outer)
    }
}

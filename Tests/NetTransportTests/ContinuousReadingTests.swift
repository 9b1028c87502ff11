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

    @Test("elapsed counts from the reading, as ContinuousClock measures it")
    func elapsedIsMeasuredOnTheSameClock() {
        let reading = ContinuousReading.now
        let clockStart = ContinuousClock.now
        var spin = 0
        while clockStart.duration(to: .now) < .milliseconds(2) { spin += 1 }
        let clockElapsed = clockStart.duration(to: .now)
        let elapsed = reading.elapsed
        // Read after the clock's own, from a reading taken before it: never shorter.
        #expect(elapsed >= clockElapsed, "spun \(spin) times")
        // A scale a thousand times too large would make 2 ms two seconds.
        #expect(elapsed < clockElapsed + .seconds(1))
    }
}

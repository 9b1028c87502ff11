/// A reading of `ContinuousClock`, kept as the `Duration` since the clock's epoch.
///
/// `ContinuousClock.Instant` is not `@frozen`: outside the Concurrency library its size is known
/// only at run time, so every async frame that holds one (a call's deadline, its metrics' start)
/// allocates room for it from the task when the frame is entered, and copies it through the
/// type's value witnesses. `Duration` is frozen, so this reading is a plain 16-byte value
/// (Benchmarks/NOTEBOOK.md, "Resilient types in async frames").
struct ContinuousReading: Sendable {
    /// The time since `ContinuousClock`'s epoch.
    let sinceEpoch: Duration

    /// The clock now. Kept out of line: inlined into an async function, its own temporaries (the
    /// clock and its instant) would take room from the task there.
    static var now: ContinuousReading {
        @inline(never) get {
            let clock = ContinuousClock()
            return ContinuousReading(sinceEpoch: clock.now - clock.systemEpoch)
        }
    }

    /// How long ago this reading was taken.
    var elapsed: Duration { Self.now.sinceEpoch - sinceEpoch }
}

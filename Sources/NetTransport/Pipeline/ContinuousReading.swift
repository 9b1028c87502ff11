#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A reading of `ContinuousClock`, kept as nanoseconds since the clock's epoch.
///
/// `ContinuousClock.Instant` is not `@frozen`: outside the Concurrency library its size is known
/// only at run time, so every async frame that holds one (a call's deadline, its metrics' start)
/// allocates room for it from the task when the frame is entered, and copies it through the
/// type's value witnesses. This reading is a plain 8-byte value (Benchmarks/NOTEBOOK.md,
/// "Resilient types in async frames").
struct ContinuousReading: Sendable {
    /// The time since `ContinuousClock`'s epoch: 292 years fit.
    let nanoseconds: Int64

    /// The clock now. Kept out of line: inlined into an async function, its own temporaries
    /// would take room from the task there. On Linux, `CLOCK_BOOTTIME` read directly: the clock
    /// `ContinuousClock` reads there, without its instant's 128-bit arithmetic (a call reads the
    /// clock six times; Benchmarks/NOTEBOOK.md, "Fewer async frames").
    static var now: ContinuousReading {
        @inline(never) get {
            #if os(Linux)
            var time = timespec()
            // Fails only for an unknown clock or a bad address, neither of which this can be.
            _ = clock_gettime(CLOCK_BOOTTIME, &time)
            return ContinuousReading(nanoseconds: Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec))
            #else
            let clock = ContinuousClock()
            let (seconds, attoseconds) = (clock.now - clock.systemEpoch).components
            return ContinuousReading(nanoseconds: seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
            #endif
        }
    }

    /// How long ago this reading was taken.
    var elapsed: Duration { .nanoseconds(Self.now.nanoseconds &- nanoseconds) }
}

#if canImport(Glibc)
import Glibc
#endif

/// Stretches the time bounds of timing checks when the code runs slower than on a plain build:
/// `NET_TEST_TIME_SCALE=10` under ThreadSanitizer, 3 under AddressSanitizer (`Tests/sanitizers`
/// sets them). A bound exists to catch a hang or a deadline that does not fire, and both still
/// show at ten times the bound; a plain `swift test` uses the bounds as written.
package enum TestTiming {
    /// The factor, 1 unless `NET_TEST_TIME_SCALE` says otherwise.
    package static let scale: Double = {
        guard let text = getenv("NET_TEST_TIME_SCALE").map({ String(cString: $0) }), let value = Double(text), value >= 1 else { return 1 }
        return value
    }()

    /// The sanitizer the checks run under, `NET_TEST_SANITIZER` (`thread` or `address`, set by
    /// `Tests/sanitizers`), for a check whose count includes the sanitizer's own threads.
    package static let sanitizer: String? = getenv("NET_TEST_SANITIZER").map { String(cString: $0) }

    /// `duration` times ``scale``.
    package static func scaled(_ duration: Duration) -> Duration { duration * scale }

    /// A bound that only catches a hang, 120 s (scaled): a deadline given to a request whose
    /// check is about something else, or a wait for an event that must come. `swift test` starts
    /// every check at once, so the whole suite is CPU-bound on two cores for its 45–65 s, and a
    /// check's own steps queue behind everyone's: beside two busy processes, a redirect loop's
    /// first request reached the server 11 s after its check began and its hops came 0.5–8 s
    /// apart, so 30 s ended the call after 9 of its 11 requests. A guard has to outlast the
    /// suite, not the exchange; a hang still fails it, only later.
    package static var hangGuard: Duration { scaled(.seconds(120)) }

    /// The factor for memory bounds, 1 unless `NET_TEST_MEMORY_SCALE` says otherwise: 5 under
    /// AddressSanitizer, whose shadow memory and redzones grow with every byte the heap touches
    /// (the load probe grew 59 MB there against 39.6 allowed at 3), 2 under ThreadSanitizer, where
    /// the load probe and URLSession's 1 GiB probes grow by the sanitizer's own memory (25 to 106
    /// MB, and 185 to 195 MB, 2026-12-02) past their bounds and the faults they exist to catch,
    /// and so are reported, not judged. A 1 GiB body held whole
    /// instead of streamed still shows at five times the streaming checks' 32 MiB; the multipart
    /// check's 100 MiB becomes 500 MiB against a 512 MiB part held whole, a thin margin.
    package static let memoryScale: Int = {
        guard let text = getenv("NET_TEST_MEMORY_SCALE").map({ String(cString: $0) }), let value = Int(text), value >= 1 else { return 1 }
        return value
    }()
}
